// Importing the module defines <nature-assessment> (once: a page may load it twice).
import { NatureAssessment } from './nature-assessment.js';

if (!customElements.get('nature-assessment')) customElements.define('nature-assessment', NatureAssessment);

declare global {
  interface HTMLElementTagNameMap {
    'nature-assessment': NatureAssessment;
  }
}

export type { ErrorDetail, ProgressDetail, SubmittedDetail } from './nature-assessment.js';
export { NatureAssessment };
