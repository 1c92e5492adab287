import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT_ID, activity } from '../../src/domain/accounts.js';
import type { AccountPlanRecord } from '../../src/domain/plans.js';
import type { AccountStoreFixture } from './account-store.contract.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 10, minute, 0)).toISOString();

const plan = (fields: Partial<AccountPlanRecord> = {}): AccountPlanRecord => ({
  account_id: ACCOUNT_ID,
  plan: 'standard',
  hard_cap: false,
  set_at: at(1),
  set_by: { type: 'operator' },
  ...fields,
});

const changed = (detail: string, minute: number) =>
  activity({ type: 'operator' }, 'plan.changed', ACCOUNT_ID, detail, new Date(at(minute)));

/** The account store's plan (issue 46): every adapter keeps it as the SQLite store in keys.db does. */
export function accountPlanContract(adapter: string, open: () => Promise<AccountStoreFixture>, skip = false): void {
  describe.skipIf(skip)(`account store contract, the plan: ${adapter}`, () => {
    let fixture: AccountStoreFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('has no plan before the operator sets one, then the one set, as set; none for another account', async () => {
      expect(await fixture.store.plan(ACCOUNT_ID)).toBeUndefined();
      expect(await fixture.store.setPlan(plan())).toBe(true);
      expect(await fixture.store.plan(ACCOUNT_ID)).toEqual(plan());
      expect(await fixture.store.plan('acct_other')).toBeUndefined();
    });

    it('writes a change with the entry recording it; the same plan and cap again changes and records nothing', async () => {
      expect(await fixture.store.setPlan(plan(), changed('starter → standard', 1))).toBe(true);
      expect(await fixture.store.setPlan(plan({ set_at: at(2) }), changed('standard → standard', 2))).toBe(false);
      // The first setting stands, with its time.
      expect(await fixture.store.plan(ACCOUNT_ID)).toEqual(plan());
      expect(await fixture.store.setPlan(plan({ hard_cap: true, set_at: at(3) }), changed('standard → standard, capped', 3))).toBe(true);
      expect(await fixture.store.setPlan(plan({ plan: 'scale', hard_cap: true, set_at: at(4) }), changed('→ scale', 4))).toBe(true);
      await fixture.reopen();
      expect(await fixture.store.plan(ACCOUNT_ID)).toEqual(plan({ plan: 'scale', hard_cap: true, set_at: at(4) }));
      expect((await fixture.store.activity(ACCOUNT_ID, 10)).map((entry) => entry.detail).reverse()).toEqual([
        'starter → standard',
        'standard → standard, capped',
        '→ scale',
      ]);
    });

    it('lets exactly one of concurrent settings of the same plan change it, with one entry', async () => {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => fixture.store.setPlan(plan({ set_at: at(i) }), changed(`attempt ${i}`, i))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await fixture.store.activity(ACCOUNT_ID, 10)).toHaveLength(1);
    });
  });
}
