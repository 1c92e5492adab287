import QRCode from 'qrcode';
import { Html, html } from './html.js';

/** Whole pixels per module keep the squares crisp; 4 px draws a code of an e-mail address within a 390 px screen. */
const MODULE_PX = 4;
/** The quiet zone a scanner needs around the code, in modules (ISO/IEC 18004 asks for 4). */
const MARGIN = 4;
const LEVEL = 'M';

/**
 * `text` as a QR code drawn in the page (inline SVG: no image service, nothing fetched), dark on light whatever the
 * theme, as cameras read best. Read out as `label`: the code's squares mean nothing to a screen reader.
 */
export async function qrCode(text: string, label: string): Promise<Html> {
  const width = (QRCode.create(text, { errorCorrectionLevel: LEVEL }).modules.size + 2 * MARGIN) * MODULE_PX;
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: LEVEL, margin: MARGIN, width });
  // qrcode's SVG holds path data and colours only, none of `text`: it is markup already, not text to escape.
  return html`<div class="qr" role="img" aria-label="${label}">${new Html(svg.trim())}</div>`;
}
