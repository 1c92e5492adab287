import { externalIdStream } from '../../domain/subject.js';
import type { DataKeyStore } from '../../ports/data-keys.js';
import { isEnvelope, seal } from '../../privacy/pii-envelope.js';
import { openDatabase, type Synchronous } from './database.js';
import { APPEND_ONLY } from './event-store.js';

/** The log's format: 1 = personal fields sealed per subject, reservations named by HMAC. */
const FORMAT = 1;

interface Row {
  position: number;
  event_id: string;
  stream_name: string;
  type: string;
  data: string;
}

/**
 * Upgrades a log written before per-subject encryption, once, in place: every `pii` is sealed with its
 * subject's new data key (ResponsesSubmitted gains the subject_id that says which), and each external-id
 * reservation stream is renamed from its plain SHA-256 to the keyed hash. This is the one time events are
 * rewritten: the append-only triggers are lifted and restored inside the same transaction, and a VACUUM
 * then drops the old plaintext pages. Returns how many events changed (0 for a log already in format 1).
 */
export async function encryptLegacyLog(path: string, synchronous: Synchronous, keys: DataKeyStore): Promise<number> {
  // A log created here starts in the current format, so no later start has to scan it.
  const db = openDatabase(path, synchronous);
  try {
    if ((db.pragma('user_version', { simple: true }) as number) >= FORMAT) return 0;
    const hasLog = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined;
    const rows = hasLog
      ? db.prepare<[], Row>('SELECT position, event_id, stream_name, type, data FROM events ORDER BY position').all()
      : [];
    const externalIds = new Map<string, string>();
    const subjectOfAssessment = new Map<string, string>();
    for (const row of rows) {
      const data = JSON.parse(row.data);
      if (row.type === 'SubjectCreated' && data.pii && !isEnvelope(data.pii))
        externalIds.set(data.subject_id, data.pii.external_subject_id);
      if (row.type === 'AssessmentStarted') subjectOfAssessment.set(data.assessment_id, data.subject_id);
    }
    const secret = await keys.environmentSecret();
    const changes: { position: number; stream_name: string; data: string }[] = [];
    for (const row of rows) {
      const data = JSON.parse(row.data);
      if (data.pii && !isEnvelope(data.pii)) {
        const subjectId: string = data.subject_id ?? subjectOfAssessment.get(data.assessment_id);
        const key = await keys.keyFor(subjectId);
        const sealed = { ...data, subject_id: subjectId, pii: seal(key, data.pii, subjectId, row.event_id) };
        changes.push({ position: row.position, stream_name: row.stream_name, data: JSON.stringify(sealed) });
      } else if (row.type === 'ExternalIdClaimed' && externalIds.has(data.subject_id)) {
        changes.push({ position: row.position, stream_name: externalIdStream(externalIds.get(data.subject_id)!, secret), data: row.data });
      }
    }
    db.transaction(() => {
      if (changes.length > 0) {
        db.exec('DROP TRIGGER IF EXISTS events_are_never_updated');
        const update = db.prepare<[string, string, number]>('UPDATE events SET stream_name = ?, data = ? WHERE position = ?');
        for (const change of changes) update.run(change.stream_name, change.data, change.position);
        db.exec(APPEND_ONLY);
      }
      db.pragma(`user_version = ${FORMAT}`);
    }).immediate();
    if (changes.length > 0) {
      db.exec('VACUUM');
      db.pragma('wal_checkpoint(TRUNCATE)');
    }
    return changes.length;
  } finally {
    db.close();
  }
}
