import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogueStore } from '../../src/ports/careers-catalogue.js';
import { smallCatalogue } from '../support/careers-fixture.js';

export interface CatalogueStoreFixture {
  store: CatalogueStore;
  /** A second store on the same data, as another process (a server beside the import) has it. */
  another(): Promise<CatalogueStore>;
  /** Closes the current store and removes its data. */
  cleanup(): Promise<void>;
}

/** The behaviour every catalogue-store adapter must have. `open` gives each test an empty store. */
export function catalogueStoreContract(adapter: string, open: () => Promise<CatalogueStoreFixture>, skip = false): void {
  describe.skipIf(skip)(`catalogue store contract: ${adapter}`, () => {
    let fixture: CatalogueStoreFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('has nothing installed at first', async () => {
      expect(await fixture.store.current()).toBeUndefined();
    });

    it('installs a catalogue that another store on the same data then loads as it was', async () => {
      const { changed, installed } = await fixture.store.install(smallCatalogue());
      expect(changed).toBe(true);
      expect(installed).toMatchObject({ id: expect.stringMatching(/^cat_/), version: 'onet-27.0/careers-map-v1' });
      expect(installed.digest).toMatch(/^[0-9a-f]{64}$/);
      const other = await fixture.another();
      try {
        expect(await other.current()).toEqual(installed);
        expect(await other.load(installed.id)).toEqual(smallCatalogue());
      } finally {
        await other.close();
      }
    });

    it('changes nothing when the same content is installed again', async () => {
      const first = await fixture.store.install(smallCatalogue());
      const again = await fixture.store.install(smallCatalogue());
      expect(again).toEqual({ changed: false, installed: first.installed });
      expect(await fixture.store.current()).toEqual(first.installed);
    });

    it('swaps a different catalogue in whole, under a new id, and lets the previous one go', async () => {
      const first = await fixture.store.install(smallCatalogue());
      const next = { ...smallCatalogue(), release: '28.0', occupations: smallCatalogue().occupations.slice(0, 2) };
      const second = await fixture.store.install(next);
      expect(second.changed).toBe(true);
      expect(second.installed.id).not.toBe(first.installed.id);
      expect(second.installed.version).toBe('onet-28.0/careers-map-v1');
      expect(await fixture.store.current()).toEqual(second.installed);
      expect(await fixture.store.load(second.installed.id)).toEqual(next);
      await expect(fixture.store.load(first.installed.id)).rejects.toThrow(`catalogue ${first.installed.id} is no longer installed`);
    });

    it('installs earlier content again under a new id, so servers see the change', async () => {
      const first = await fixture.store.install(smallCatalogue());
      await fixture.store.install({ ...smallCatalogue(), release: '28.0' });
      const back = await fixture.store.install(smallCatalogue());
      expect(back.changed).toBe(true);
      expect(back.installed.digest).toBe(first.installed.digest);
      expect(back.installed.id).not.toBe(first.installed.id);
    });

    it('leaves one whole catalogue current when two imports install at once', async () => {
      await fixture.store.install(smallCatalogue());
      const other = await fixture.another();
      try {
        const outcomes = await Promise.allSettled([
          fixture.store.install({ ...smallCatalogue(), release: '28.0' }),
          other.install({ ...smallCatalogue(), release: '29.0' }),
        ]);
        const won = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.installed] : []));
        expect(won.length).toBeGreaterThanOrEqual(1);
        // Whichever landed last is current, and it loads whole: a loser's clean-up never took the winner's data.
        const current = (await other.current())!;
        expect(won.map((installed) => installed.id)).toContain(current.id);
        expect(['28.0', '29.0']).toContain((await fixture.store.load(current.id)).release);
      } finally {
        await other.close();
      }
    });
  });
}
