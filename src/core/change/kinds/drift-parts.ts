/** Filled in by the drift step. */
export interface KindDrift {
  key: string;
}
