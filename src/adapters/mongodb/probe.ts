import { MongoClient } from 'mongodb';

/** Resolves once the MongoDB deployment at `url` answers a ping, within `timeoutMs` of server selection. */
export async function probeMongoDb(url: string, timeoutMs: number): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}
