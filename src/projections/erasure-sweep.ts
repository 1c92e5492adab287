import type { SubjectErased } from '../domain/subject.js';
import type { Collection, Collections } from '../ports/collections.js';
import type { RecordedEvent } from '../ports/event-store.js';
import type { Sweep } from '../ports/projection.js';

/**
 * The sweep of a collection whose documents carry a `subject_id`: on the subject's SubjectErased, each of them keeps
 * only the `keep` fields (and `erased: true`); every personal field goes. What it keeps are fields every variant of
 * the collection's documents has (those its erased variant keeps).
 */
export function erasureSweep<C extends Collection>(
  keep: readonly (keyof Collections[C] & string)[],
): (event: RecordedEvent) => Sweep | undefined {
  return (event) => {
    if (event.type !== 'SubjectErased') return undefined;
    const { subject_id } = event.data as SubjectErased['data'];
    return { where: { subject_id }, keep, set: { erased: true } };
  };
}
