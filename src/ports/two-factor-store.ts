import type { ActivityRecord } from '../domain/accounts.js';
import type { PendingSignInRecord, TwoFactorRecord } from '../domain/two-factor.js';

/**
 * Two-factor sign-in's records, in the account's store (AccountStore.twoFactor): each user's TOTP enrolment and
 * recovery codes, the account's requirement, and sign-ins waiting for a code. Every check that must hold once (a
 * time step accepted, a recovery code or a pending sign-in spent) is one conditional write, so two requests at
 * once cannot both pass. As in AccountStore, `activity` is written with the change it records, or not at all.
 */
export interface TwoFactorStore {
  /** The user's enrolment, pending or on; undefined when they have none. */
  get(userId: string): Promise<TwoFactorRecord | undefined>;
  /** The users whose two-factor sign-in is on (confirmed), in id order: what a list of members shows. */
  enabledUserIds(): Promise<string[]>;
  /** Starts `record`'s enrolment unless the user has one already (pending or on): answers the one that stands. */
  begin(record: TwoFactorRecord): Promise<TwoFactorRecord>;
  /** Turns the user's pending enrolment on, `step` accepted and these recovery codes' hashes kept; false when none is pending. */
  enable(userId: string, step: number, recoveryCodeHashes: string[], at: string, activity?: ActivityRecord): Promise<boolean>;
  /** Accepts a code of time step `step` once: true only while two-factor is on and `step` is later than every step accepted before. */
  acceptStep(userId: string, step: number): Promise<boolean>;
  /** Spends a recovery code by its hash: true once, while two-factor is on. */
  spendRecoveryCode(userId: string, hash: string, activity?: ActivityRecord): Promise<boolean>;
  /** Replaces every recovery code (used or not) with these; false when two-factor is not on. */
  replaceRecoveryCodes(userId: string, hashes: string[], activity?: ActivityRecord): Promise<boolean>;
  /** Removes the user's enrolment (pending or on) and their recovery codes; false when they had none. */
  disable(userId: string, activity?: ActivityRecord): Promise<boolean>;

  /** Whether the account requires two-factor sign-in of every member (not until it is set). */
  required(accountId: string): Promise<boolean>;
  /** Sets the requirement; false (and no entry written) when it already stood so. */
  setRequired(accountId: string, required: boolean, activity?: ActivityRecord): Promise<boolean>;

  /** Keeps a sign-in waiting for its code; those ended by `pending.created_at` are dropped. Throws on an id hash already kept. */
  insertPending(pending: PendingSignInRecord): Promise<void>;
  /** A sign-in waiting for its code; AccountStore.insertSession spends it as it starts the session. */
  pending(idHash: string): Promise<PendingSignInRecord | undefined>;
}
