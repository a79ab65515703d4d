/** The package ships no types: its answer is parsed at the boundary (core/service/load.ts). */
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown;
}
