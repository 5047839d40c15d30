/**
 * English zod messages for the schemas, which use zod/mini: zod/mini loads no locale, so
 * every message would read "Invalid input" (classic `zod` sets this same English locale when
 * imported). Called at the top of each schema module; an error locale the application
 * configured first is left alone.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

export function useEnglishErrors(): void {
  if (config().localeError === undefined) config(en());
}
