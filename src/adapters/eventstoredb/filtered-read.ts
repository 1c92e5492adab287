import type { AllStreamResolvedEvent, EventStoreDBClient, Position } from '@eventstore/db-client';
import readStream from '@eventstore/db-client/dist/streams/utils/ReadStream.js';
import grpcEvent from '@eventstore/db-client/dist/utils/convertGrpcEvent.js';
// @eventstore/db-client 6 (its last line) filters $all subscriptions on the server but not $all reads, which the
// server supports over the same gRPC call: the read is built here on the client's own connection, as its readAll
// builds an unfiltered one. These are CommonJS modules, hence the default imports.
import shared from '@eventstore/db-client/generated/shared_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import streams from '@eventstore/db-client/generated/streams_pb.js';
import type { ReadAllOptions, RecordedEvent } from '../../ports/event-store.js';
import { decodePosition, encodePosition, fromStoredEvent, isServerEvent, type StoredEvent } from './mapping.js';

type StreamsClient = InstanceType<typeof streamsGrpc.StreamsClient>;
type ReadArguments = Parameters<StreamsClient['read']>;
type ReadCall = ReturnType<StreamsClient['read']>;

/** The two protected members of the client that its own reads are made with. */
interface ClientInternals {
  GRPCStreamCreator(
    Client: typeof streamsGrpc.StreamsClient,
    debugName: string,
    creator: (client: StreamsClient) => ReadCall,
  ): () => Promise<ReadCall>;
  callArguments(options: object, callOptions: { deadline: number }): [NonNullable<ReadArguments[1]>, NonNullable<ReadArguments[2]>];
}

/** The gRPC request for up to `maxCount` events of $all from `from` (inclusive) on, of streams named with `prefix` only. */
export function filteredReadRequest(prefix: string, from: Position | undefined, maxCount: number): streams.ReadReq {
  const all = new streams.ReadReq.Options.AllOptions();
  if (from === undefined) all.setStart(new shared.Empty());
  else
    all.setPosition(
      new streams.ReadReq.Options.Position().setCommitPosition(from.commit.toString(10)).setPreparePosition(from.prepare.toString(10)),
    );
  const filter = new streams.ReadReq.Options.FilterOptions()
    .setStreamIdentifier(new streams.ReadReq.Options.FilterOptions.Expression().setPrefixList([prefix]))
    // The server's own search window (it pages through the log until `maxCount` events or its end); the
    // checkpoint multiplier only matters to subscriptions.
    .setCount(new shared.Empty())
    .setCheckpointintervalmultiplier(1);
  const options = new streams.ReadReq.Options()
    .setAll(all)
    .setReadDirection(streams.ReadReq.Options.ReadDirection.FORWARDS)
    .setResolveLinks(false)
    .setCount(String(maxCount))
    .setUuidOption(new streams.ReadReq.Options.UUIDOption().setString(new shared.Empty()))
    .setFilter(filter);
  return new streams.ReadReq().setOptions(options);
}

/**
 * Up to `maxCount` events of $all from `from` on, of streams named with `prefix` only: the server searches the
 * log and sends nothing of other environments. Errors are the client's own (its read stream converts them).
 */
export function readAllFiltered(
  client: EventStoreDBClient,
  prefix: string,
  from: Position | undefined,
  maxCount: number,
): AsyncIterable<AllStreamResolvedEvent> {
  // Protected members have no public type to reach them by: this cast is the adapter's one way in.
  const internals = client as unknown as ClientInternals;
  const request = filteredReadRequest(prefix, from, maxCount);
  const create = internals.GRPCStreamCreator(streamsGrpc.StreamsClient, 'readAll', (grpc) =>
    grpc.read(request, ...internals.callArguments({}, { deadline: Infinity })),
  );
  return new readStream.ReadStream(create, grpcEvent.convertGrpcEvent<AllStreamResolvedEvent>, {});
}

/** One read of $all for our streams: up to `maxCount` events from `from` (inclusive) on, as readAllFiltered. */
export type FilteredRead = (from: Position | undefined, maxCount: number) => AsyncIterable<{ event?: StoredEvent }>;

/**
 * The port's readAll over filtered reads. A read includes the event at its start, which the port's `after`
 * excludes, and the server's own records in our streams (a tombstone) are passed over: a read that came back
 * full but left us short is continued from where it got.
 */
export async function readEvents(read: FilteredRead, streamPrefix: string, { after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
  const found: RecordedEvent[] = [];
  let from = after;
  for (;;) {
    const wanted = limit - found.length + 1;
    let count = 0;
    for await (const { event } of read(from === undefined ? undefined : decodePosition(from), wanted)) {
      count += 1;
      if (event?.position === undefined) continue;
      const position = encodePosition(event.position);
      if (from !== undefined && position <= from) continue;
      from = position;
      if (isServerEvent(event)) continue;
      found.push(fromStoredEvent(event, streamPrefix));
      if (found.length === limit) return found;
    }
    if (count < wanted) return found;
  }
}
