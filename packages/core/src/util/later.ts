/**
 * Resolves once the event loop has taken the I/O already waiting. Where `setImmediate` exists
 * (Node, Bun) that is after the loop's next poll: an immediate queued now runs after this turn's
 * poll, one queued from it after the next. Elsewhere, after a zero-delay timer.
 */
export function afterPendingIo(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  return new Promise<void>((resolve) => {
    if (immediate === undefined) setTimeout(resolve, 0);
    else immediate(() => immediate(resolve));
  });
}
