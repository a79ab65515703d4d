/** Why a change request was not filed, in the sentence its requester reads (core/approval/filing.ts decides). */
import type { FilingRefusal } from '../approval/filing.js';
import { breakGlassRefusalText, extensionOutsideWindowText, frozenText, neverOpenText } from './breakglass.js';
import { deniedText, unjustifiedText } from './policy.js';

export function filingRefusalText(refusal: FilingRefusal): string {
  switch (refusal.kind) {
    case 'denied':
      return deniedText(refusal.decision);
    case 'unjustified':
      return unjustifiedText(refusal.lacking, refusal.askedBy);
    case 'ask-in-form':
      return unjustifiedText(refusal.lacking, 'form');
    case 'frozen':
      return frozenText(refusal.timing);
    case 'never-open':
      return neverOpenText(refusal.timing);
    case 'extension-outside-window':
      return extensionOutsideWindowText(refusal.timing);
    case 'break-glass':
      return breakGlassRefusalText(refusal.refusal);
  }
}
