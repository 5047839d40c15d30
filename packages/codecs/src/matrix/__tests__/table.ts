/**
 * The support table: the matrix results rendered as Markdown, one table per scenario (rows: from,
 * columns: to; each cell one symbol per check), with numbered notes for every lossy or failing
 * cell. The README holds it between markers; `spliceReadme` replaces that section.
 */
import type { WireFormat } from '../../ir/wire-format.js';
import { SHORT } from './capabilities.js';
import { cellKey, FORMATS, PAIRS, type Scenario } from './matrix.js';
import type { Outcome } from './outcome.js';

export const START = '<!-- matrix:start -->';
export const END = '<!-- matrix:end -->';

const SYMBOL = { full: '✓', lossy: '≈', impossible: '✗', failing: '⚠' } as const;
const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

function superscript(n: number): string {
  return [...String(n)].map((d) => SUPERSCRIPT[Number(d)]).join('');
}

/** The footnote of an outcome, or undefined when there is nothing to say. */
function noteOf(outcome: Outcome, streamOnly: boolean): string | undefined {
  if (outcome.level === 'failing') return `**fails**: ${outcome.notes.join('; ')}`;
  if (outcome.level === 'full' && outcome.info.length === 0) return undefined;
  const parts: string[] = [];
  if (outcome.level !== 'full') {
    const codes = outcome.codes.map((c) => `\`${c}\``).join(', ');
    // Streams have no warning channel (said once, in the legend); elsewhere a silent loss is called out.
    parts.push(codes.length > 0 ? `${codes}: ` : streamOnly ? '' : 'no warning: ');
    parts.push(outcome.notes.join('; '));
  }
  if (outcome.info.length > 0) parts.push(`${parts.length > 0 ? '; ' : ''}${outcome.info.join('; ')} (not a loss)`);
  return parts.join('');
}

export function renderScenario(scenario: Scenario, results: ReadonlyMap<string, Outcome>): string {
  const notes: string[] = [];
  const cell = (from: WireFormat, to: WireFormat) =>
    scenario.checks
      .map((check) => {
        const outcome = results.get(cellKey(scenario.id, check.id, from, to));
        if (outcome === undefined) throw new Error(`no result for ${cellKey(scenario.id, check.id, from, to)}`);
        const note = noteOf(outcome, check.direction === 'stream');
        let mark = '';
        if (note !== undefined) {
          let n = notes.indexOf(note);
          if (n === -1) n = notes.push(note) - 1;
          mark = superscript(n + 1);
        }
        return `${SYMBOL[outcome.level]}${mark}`;
      })
      .join(' ');
  const lines = [
    `### ${scenario.title}`,
    '',
    scenario.about,
    '',
    `Each cell: ${scenario.checks.map((c) => c.label).join(' · ')}.`,
    '',
    `| from ＼ to | ${FORMATS.map((f) => SHORT[f]).join(' | ')} |`,
    `|---|${FORMATS.map(() => ':-:').join('|')}|`,
    ...FORMATS.map((from) => `| **${SHORT[from]}** | ${FORMATS.map((to) => cell(from, to)).join(' | ')} |`),
  ];
  if (notes.length > 0) lines.push('', ...notes.map((note, i) => `${i + 1}. ${note}`));
  return lines.join('\n');
}

export function renderTable(scenarios: readonly Scenario[], results: ReadonlyMap<string, Outcome>): string {
  const checks = scenarios.reduce((n, s) => n + s.checks.length, 0);
  const count = (level: Outcome['level']) => [...results.values()].filter((o) => o.level === level).length;
  const levels = (['full', 'lossy', 'impossible', 'failing'] as const).filter((l) => count(l) > 0);
  const legend: Record<Outcome['level'], string> = {
    full: '✓ full',
    lossy: '≈ lossy (the note names the warning codes and what is lost; `convertStream` has no warning channel, so stream notes name none)',
    impossible: '✗ not possible',
    failing: '⚠ fails (a known bug, named in the note)',
  };
  const words: Record<Outcome['level'], string> = { full: 'full', lossy: 'lossy', impossible: 'not possible', failing: 'failing' };
  return [
    START,
    '<!-- Generated from the matrix results by packages/codecs/src/matrix/support-table.test.ts; do not edit by hand.',
    '     Regenerate: UPDATE_MATRIX=1 npx vitest run --project codecs packages/codecs/src/matrix/support-table.test.ts -->',
    '',
    `Rows are the source format (the client's for requests, the upstream's for responses, streams and errors); columns are the target format. The diagonal is the same format on both sides. ${levels.map((l) => legend[l]).join(' · ')}.`,
    '',
    `${PAIRS.length} ordered pairs × ${checks} checks in ${scenarios.length} scenarios = ${PAIRS.length * checks} cells: ${levels.map((l) => `${count(l)} ${words[l]}`).join(', ')}.`,
    '',
    ...scenarios.flatMap((s) => [renderScenario(s, results), '']),
    END,
  ].join('\n');
}

/** The README with its matrix section replaced (markers included). */
export function spliceReadme(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end === -1 || end < start) throw new Error(`the README has no ${START} … ${END} section`);
  return readme.slice(0, start) + table + readme.slice(end + END.length);
}

/** The README's current matrix section (markers included). */
export function readmeSection(readme: string): string | undefined {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  return start === -1 || end === -1 ? undefined : readme.slice(start, end + END.length);
}
