import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousViolations } from './axe.js';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** In the page: elements reaching past the viewport's right edge, but for those inside a box that scrolls sideways on its own. */
export const WIDER_THAN_VIEWPORT = `[...document.querySelectorAll('body *')]
  .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && !element.closest('.scroll, pre'))
  .map((element) => element.tagName.toLowerCase() + (element.className ? '.' + element.className : ''))`;

/**
 * The page as it stands passes axe-core (no serious or critical violation) at 1280 and 390 px, scrolls down but never
 * sideways on a phone (wide tables scroll inside their own box), and is photographed at both widths into `dir`.
 */
export async function checkPage(page: Page, dir: string, name: string): Promise<void> {
  expect(await seriousViolations(page), name).toEqual([]);
  await page.screenshot({ path: join(dir, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  expect(await page.evaluate(WIDER_THAN_VIEWPORT), `${name}: elements wider than 390 px`).toEqual([]);
  expect(await seriousViolations(page), `${name} at 390 px`).toEqual([]);
  await page.screenshot({ path: join(dir, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}
