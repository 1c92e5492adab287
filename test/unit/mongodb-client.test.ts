import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { concerns, mongoClientOptions, sharedByKey, transactionOptions } from '../../src/adapters/mongodb/client.js';

describe('the MongoDB client options (no server)', () => {
  it('asks every write for a journaled majority within the timeout, and every read for majority-committed data on the primary', () => {
    const client = new MongoClient('mongodb://db1:27017,db2:27017/?replicaSet=rs0', mongoClientOptions(4000));
    expect(client.options.writeConcern).toMatchObject({ w: 'majority', journal: true, wtimeoutMS: 4000 });
    expect(client.options.readConcern.level).toBe('majority');
    expect(client.options.readPreference.mode).toBe('primary');
    expect(client.options.retryWrites).toBe(true);
    expect(client.options.retryReads).toBe(true);
  });

  it('bounds every wait: server selection, connecting, a pooled connection, and a silent socket beyond the write timeout', () => {
    const { options } = new MongoClient('mongodb://db1:27017/', mongoClientOptions(4000));
    expect(options).toMatchObject({ serverSelectionTimeoutMS: 4000, connectTimeoutMS: 4000, waitQueueTimeoutMS: 4000 });
    expect(options.socketTimeoutMS).toBeGreaterThan(4000);
  });

  it("keeps the stores' concerns when the URL asks for weaker ones (the URL's w=1 or readConcernLevel=local never win)", () => {
    const weak = 'mongodb://db1:27017/?w=1&journal=false&wtimeoutMS=5&readConcernLevel=local&readPreference=secondary&retryWrites=false';
    const client = new MongoClient(weak, mongoClientOptions(4000));
    const db = client.db('nature_production', concerns(4000));
    expect(db.writeConcern).toMatchObject({ w: 'majority', journal: true, wtimeoutMS: 4000 });
    expect(db.readConcern?.level).toBe('majority');
    expect(db.readPreference.mode).toBe('primary');
    expect(db.collection('_leases').writeConcern).toMatchObject({ w: 'majority', journal: true });
    expect(client.options.retryWrites).toBe(true);
  });

  it('commits a transaction with a journaled majority, bounded, reading one snapshot on the primary', () => {
    const options = transactionOptions(4000);
    expect(options.writeConcern).toMatchObject({ w: 'majority', journal: true, wtimeoutMS: 4000 });
    expect(options.readConcern).toEqual({ level: 'snapshot' });
    expect(options.readPreference).toBe('primary');
    expect(options.maxCommitTimeMS).toBe(4000);
  });
});

describe('one client per process (no server)', () => {
  /** A sharing of fake clients that records what was opened and closed. */
  function fakes() {
    const opened: string[] = [];
    const closed: string[] = [];
    let failing = false;
    const share = sharedByKey(
      (url: string) => url,
      async (url: string) => {
        if (failing) throw new Error(`cannot reach ${url}`);
        opened.push(url);
        return { url, n: opened.length };
      },
      async ({ url }) => void closed.push(url),
    );
    return { share, opened, closed, fail: (value: boolean) => (failing = value) };
  }

  it('opens one client for every user of the same settings, even when they ask at once, and closes it after the last lets go', async () => {
    const { share, opened, closed } = fakes();
    const users = await Promise.all([share('mongodb://a'), share('mongodb://a'), share('mongodb://a')]);
    const other = await share('mongodb://b');
    expect(opened).toEqual(['mongodb://a', 'mongodb://b']);
    expect(new Set(users.map((user) => user.value)).size).toBe(1);
    await users[0]!.release();
    // Released twice by the same user counts once.
    await users[0]!.release();
    await users[1]!.release();
    expect(closed).toEqual([]);
    await users[2]!.release();
    expect(closed).toEqual(['mongodb://a']);
    await other.release();
    expect(closed).toEqual(['mongodb://a', 'mongodb://b']);
  });

  it('opens a new client for a user that comes after the last one let go', async () => {
    const { share, opened, closed } = fakes();
    await (await share('mongodb://a')).release();
    const again = await share('mongodb://a');
    expect(opened).toEqual(['mongodb://a', 'mongodb://a']);
    expect(again.value.n).toBe(2);
    await again.release();
    expect(closed).toEqual(['mongodb://a', 'mongodb://a']);
  });

  it('forgets a client that failed to open: the next user tries again', async () => {
    const { share, opened, fail } = fakes();
    fail(true);
    await expect(share('mongodb://a')).rejects.toThrow('cannot reach mongodb://a');
    fail(false);
    const user = await share('mongodb://a');
    expect(opened).toEqual(['mongodb://a']);
    await user.release();
  });
});
