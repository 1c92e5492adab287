/** A `pii` value as the log stores it: AES-256-GCM under the subject's data key, a fresh nonce per event (privacy/pii-envelope.ts seals and opens it). */
export interface PiiEnvelope {
  alg: 'A256GCM';
  /** 12-byte nonce, base64. */
  iv: string;
  /** Ciphertext followed by the 16-byte tag, base64. */
  ct: string;
}
