/** Invitations to join the account (keys.db step 4): the token only as a hash, the address sealed. */
export const INVITATIONS = `
CREATE TABLE invitations (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL,
  role        TEXT NOT NULL,
  email_sealed TEXT NOT NULL,
  email_index TEXT NOT NULL UNIQUE,
  token_hash  TEXT NOT NULL UNIQUE,
  expires_at  TEXT NOT NULL,
  invited_by  TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX invitations_by_account ON invitations (account_id, id);
`;
