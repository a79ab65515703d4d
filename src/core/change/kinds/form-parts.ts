/** Filled in by the edit modal step. */
export interface KindForm {
  key: string;
}
