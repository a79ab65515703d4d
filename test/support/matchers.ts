/**
 * Vitest's asymmetric matchers are typed `any`; the type-aware lint (no-unsafe-assignment) rightly
 * refuses to let an `any` flow into an expected object. These are the same matchers, typed
 * `unknown`: they can stand for any field of an expected value and nothing else.
 */
import { expect } from 'vitest';

export const anyString = (): unknown => expect.any(String);
export const stringMatching = (pattern: RegExp): unknown => expect.stringMatching(pattern);
export const stringContaining = (text: string): unknown => expect.stringContaining(text);
