/** What one matrix cell found: full, lossy (with the warning codes and what was lost), or not possible. */
import type { ConversionWarning } from '../../ir/warning.js';

export type Level = 'full' | 'lossy' | 'impossible' | 'failing';

export interface Outcome {
  level: Level;
  /** Warning codes the conversion reported, sorted. */
  codes: string[];
  /** What was lost or changed, in words (each loss is one the check asserted and allowed). */
  notes: string[];
  /** Remarks on a full conversion (how something is carried), not losses. */
  info: string[];
}

/** Collects the warnings and the allowed losses of one check. */
export class Findings {
  private readonly codes = new Set<string>();
  private readonly notes: string[] = [];
  private readonly remarks: string[] = [];
  private impossible = false;

  warnings(warnings: readonly ConversionWarning[]): this {
    for (const w of warnings) this.codes.add(w.code);
    return this;
  }

  /** An allowed loss. Losses with the same text are listed once. */
  loss(note: string): this {
    if (!this.notes.includes(note)) this.notes.push(note);
    return this;
  }

  /** A remark that is not a loss (the cell stays full). */
  info(note: string): this {
    if (!this.remarks.includes(note)) this.remarks.push(note);
    return this;
  }

  notPossible(note: string): this {
    this.impossible = true;
    return this.loss(note);
  }

  outcome(): Outcome {
    const codes = [...this.codes].sort();
    const level = this.impossible ? 'impossible' : codes.length > 0 || this.notes.length > 0 ? 'lossy' : 'full';
    return { level, codes, notes: [...this.notes], info: [...this.remarks] };
  }
}
