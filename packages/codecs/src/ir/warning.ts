/** A lossy step in a translation. Translation never throws for lossiness; it warns. */
export interface ConversionWarning {
  code: 'dropped_field' | 'unsupported_feature' | 'signature_dropped' | 'lossy_conversion' | 'unclassified_field';
  message: string;
  /** Where in the source the dropped or changed value was (`tools[0].strict`, `logit_bias`). */
  path?: string;
}
