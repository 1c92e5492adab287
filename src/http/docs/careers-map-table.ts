import type { MapRow } from '../../careers/careers-map-v1.js';

/** Where each term's value is read in the release, in a reader's words. */
const sources: Record<MapRow['terms'][number]['source'], string> = {
  interest: 'Interest (RIASEC)',
  workStyle: 'Work style',
  workValue: 'Work value',
  skill: 'Skill (importance × level)',
  activity: 'Work activity',
  jobZone: 'Job zone',
};

/** A table cell: its pipes and asterisks (O*NET) escaped, on one line. */
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('*', '\\*').replace(/\s+/g, ' ');

/** The mapping as /docs/careers shows it: one row per descriptor of each construct, then how directly it is measured. */
export function mappingTable(rows: readonly MapRow[]): string {
  const lines = ['| Construct | Descriptor | Source | Weight | Why |', '|---|---|---|---|---|'];
  for (const row of rows) {
    row.terms.forEach((term, index) => {
      const construct = index === 0 ? `**${row.construct}**` : '';
      lines.push(`| ${construct} | ${cell(term.label)} | ${sources[term.source]} | ${term.weight} | ${cell(term.reason)} |`);
    });
  }
  lines.push('', '| Construct | How directly this release measures it |', '|---|---|');
  for (const row of rows) lines.push(`| ${row.construct} | ${cell(row.standIn)} |`);
  return lines.join('\n');
}
