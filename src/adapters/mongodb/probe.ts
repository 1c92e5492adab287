import { connectMongo, type MongoSettings } from './client.js';

/**
 * Resolves once the MongoDB deployment at `settings.url` answers within the timeouts and is one the service can
 * rely on; else throws (an UnsuitableDeploymentError for a server too old, or a standalone one not allowed).
 */
export async function probeMongoDb(settings: MongoSettings): Promise<void> {
  const connection = await connectMongo(settings);
  await connection.release();
}
