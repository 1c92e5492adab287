import type { Logger } from 'pino';
import { type CareersIndex, indexCatalogue } from '../careers/careers-index.js';
import type { CatalogueStore } from '../ports/careers-catalogue.js';
import type { Config } from '../settings/config.js';
import { openCatalogueStore } from './environments.js';

/** The careers catalogue a server answers from: swapped for a new one once `nature careers import` installed it. */
export interface CareersSource {
  /** Undefined until a catalogue is installed: the careers routes answer 503 careers_catalogue_missing then. */
  current(): CareersIndex | undefined;
  close(): Promise<void>;
}

/**
 * Loads the installed catalogue, then asks the store every `checkEveryMs` whether another was installed (its id
 * changed) and swaps in its index once loaded and indexed, so a request sees the old index or the new, whole. A
 * check or a load that fails is logged and the previous index keeps serving; the next check tries again.
 */
export async function openCareersSource(store: CatalogueStore, logger: Logger, checkEveryMs: number): Promise<CareersSource> {
  let index: CareersIndex | undefined;
  let loadedId: string | undefined;
  const check = async () => {
    const installed = await store.current();
    if (installed === undefined || installed.id === loadedId) return;
    const next = indexCatalogue(await store.load(installed.id));
    [index, loadedId] = [next, installed.id];
    logger.info({ catalogue: installed.id, version: installed.version }, 'careers catalogue loaded');
  };
  let checking: Promise<void> | undefined;
  let stopped = false;
  // One check at a time: a tick while a slow load runs is skipped, never run beside it.
  const tick = () => {
    if (checking !== undefined || stopped) return checking;
    checking = check()
      .catch((error: unknown) =>
        logger.error({ err: error }, 'could not check for a new careers catalogue; the previous one keeps serving'),
      )
      .finally(() => {
        checking = undefined;
      });
    return checking;
  };
  await tick();
  if (index === undefined) logger.warn('no careers catalogue installed: the careers routes answer 503 until "nature careers import" runs');
  const timer = setInterval(tick, checkEveryMs);
  timer.unref();
  return {
    current: () => index,
    async close() {
      stopped = true;
      clearInterval(timer);
      await checking;
      await store.close();
    },
  };
}

/** The server's source, on the catalogue store the configuration names, checked every NATURE_CAREERS_CHECK_MS. */
export async function openConfiguredCareersSource(config: Config, logger: Logger): Promise<CareersSource> {
  return openCareersSource(await openCatalogueStore(config), logger, config.careersCheckMs);
}
