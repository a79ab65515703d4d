/**
 * One kind of change (a name, IP access, tags…) is one module of this shape, and the table in
 * index.ts holds one per field a change can touch: the compiler finds a kind missing a piece.
 * Planning, the stale check, verification on a fresh record, Undo, temporary grants and policy
 * risks all read the table instead of naming fields one by one.
 */
import type { ChangeKind as PolicyChangeKind, Risk } from '../../policy/types.js';
import type { CapacityValues } from '../../capacity/values.js';
import type { LoadConcern } from '../../service/load.js';
import type { ReplicaScalingUpdate, ServiceRecord, ServiceUpdate, StateCommand } from '../../service/schema.js';
import type { PartName } from '../../service/parts.js';
import type {
  ApiKeyOperation,
  DeleteOperation,
  ChangeIntent,
  ChangePlan,
  FieldChange,
  MemberOperation,
  PartOperation,
  TouchedField,
  TouchedState,
} from '../types.js';
import type { OrganizationTargetType } from '../../access/target.js';
import type { ArgumentReader, CommandSpec, ParsedChange } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { KindDrift } from './drift-parts.js';
import type { KindForm } from './form-parts.js';

/**
 * A command that asks for this kind of change: its help line, and the parser of its arguments
 * (the words after the command's own, `at`, `because` and `ticket` already taken out).
 */
export interface KindCommand extends CommandSpec {
  parse(args: Token[], read: ArgumentReader): ParsedChange;
  /** Words after the first that are never read as `at`, `because` or `ticket` (a sub-verb, the service): 1 when absent. */
  fixedWords?: number;
  /** How the break-glass sentence names its temporary form ("endpoint … mysql on"), when it has one. */
  temporaryForm?: string;
  /** The first command of a group (ip add, ip remove): what to say when the second word is missing. */
  groupAsk?: string;
  /** Its own arguments include `at` (a time of day it sets): the word never schedules the change. */
  ownsAt?: boolean;
  /**
   * It contains a leak (a key disabled at 3 a.m.): break-glass may apply it for good, without
   * `for DURATION`; it is still reviewed after the fact like any break-glass change.
   */
  breaksGlassForGood?: boolean;
  /** What its SERVICE argument names when it is not a service: a member (email, @user) or an API key. */
  target?: OrganizationTargetType;
  /**
   * Of a group (`query-endpoint on`, `query-endpoint off`): the word choosing the command comes after
   * the service (`query-endpoint SERVICE on …`), not right after the first word (`ip add SERVICE`).
   */
  verbAfterService?: true;
}

/** `field` names the modal input the problem belongs to, so the modal can show it inline. */
export interface PlanProblem {
  field: keyof ChangeIntent | 'request';
  message: string;
}

/** What planning builds up, kind by kind: the bodies to send, the lines people read, and what is wrong. */
export interface Draft {
  update: ServiceUpdate;
  /** PATCH …/replicaScaling: the body, and what the service shows once it is done. */
  scaling: { body: ReplicaScalingUpdate; expect: CapacityValues };
  /** PATCH …/state, sent after the others. */
  power?: { command: StateCommand; expect: CapacityValues };
  /**
   * Writes to what is not the service record, sent before the record's: parts of the service the
   * API keeps apart (core/service/parts.ts), a member's roles, an API key.
   */
  writes: Array<PartOperation | MemberOperation | ApiKeyOperation | DeleteOperation>;
  changes: FieldChange[];
  warnings: string[];
  problems: PlanProblem[];
  /** Why a part asked for changes nothing (the service already shows it): said only if nothing changes. */
  unchanged: PlanProblem[];
  touched: Set<TouchedField>;
}

/** What an inverse (Undo, or a temporary grant's revert) asks for, and what it leaves alone and why. */
export interface PlannedReverse {
  intent: ChangeIntent;
  /** Sentences for the parts left alone because the service no longer shows them as the change left them. */
  leftAlone: string[];
}

export interface ChangeKindModule<F extends TouchedField> {
  field: F;
  /** The name policy files use for it (`changes: [ip-access]`). */
  policyName: PolicyChangeKind;
  /** The intent fields (command or modal input) this kind reads. */
  intents: ReadonlyArray<keyof ChangeIntent>;
  /**
   * A kind whose target is a part of the service the API keeps apart (its backup configuration…):
   * that part is read alongside the record wherever a plan of this kind is made or checked, and
   * `read` finds it in `service.parts` (core/service/parts.ts). Absent: the service record itself.
   */
  target?: PartName;
  /** Parts read alongside the record to say something about the change (a delete: the backups). */
  reads?: readonly PartName[];
  /** Approvals it needs when no policy rule names it (1 when absent). */
  defaultApprovals?: number;
  /** Each approver types the target's name to approve it (a delete). */
  confirmByName?: boolean;
  /** Nothing to take back once applied (a delete, a password reset): its record offers no Undo. */
  noUndo?: boolean;
  /**
   * Reads the times of day an intent gives in a person's zone as the UTC the API keeps, on the day
   * the request is made (`at 02:00` of backup-config); the intent as it is when there are none.
   */
  localize?(intent: ChangeIntent, zone: string, now: number): ChangeIntent;
  /**
   * A freeze in the policy file does not hold it back (maintenance windows still do): a change
   * that only says when others may happen (the upgrade window) is what a freeze needs, not what
   * it keeps out. A request is exempt only when every kind it changes is.
   */
  ignoresFreezes?: true;
  /** The commands that ask for it, in the order help lists them (one command may ask for two kinds: `scale`). */
  commands?: readonly KindCommand[];
  /** Its inputs in the edit modal, and how a submission becomes its part of the intent. */
  form?: KindForm;
  /** How drift between two summaries, and the activity log, describe it. */
  drift?: KindDrift;
  /** The field as the record shows it, read the same way everywhere. */
  read(service: ServiceRecord): NonNullable<TouchedState[F]> | null;
  /** Whether two readings are the same (the stale check). */
  same(a: TouchedState[F], b: TouchedState[F]): boolean;
  /**
   * For a set (IP access, private endpoints, tags), the stale check instead: whether the entries
   * this plan touches read now as when it was made, so that two requests for different entries
   * both apply (the update adds and removes entries, leaving the others as they are now).
   */
  entriesSame?(plan: ChangePlan, service: ServiceRecord): boolean;
  /** For a set: the entries (sources, ids, tag keys) this plan adds or removes. */
  touchedEntries?(plan: ChangePlan): string[];
  /** Adds this kind's part of the intent to the draft, checked against the record. */
  plan(draft: Draft, service: ServiceRecord, intent: ChangeIntent): void;
  /** Does the service show this kind's part of the update? (An unknown outcome is settled by it.) */
  visible(update: ServiceUpdate, service: ServiceRecord): boolean;
  /** Adds the inverse of this kind's part of an applied plan, as far as the service still shows it. */
  undo(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void;
  /** Whether this plan only contains a leak (a key disabled): break-glass may apply it for good. */
  containment?(plan: ChangePlan): boolean;
  /** The policy risks this kind's part of the plan carries. */
  risks(plan: ChangePlan): Risk[];
  /** Every risk `risks` can name, for `policy SERVICE`. */
  possibleRisks: readonly Risk[];
  /**
   * Present when this kind's part of a plan can hurt what runs now (a stop or delete, replicas or
   * memory lowered, idle scaling on): approvers then see the service's live load, with what in it
   * to warn about (core/change/live-load.ts). Undefined for this plan: nothing of the kind.
   */
  loadConcern?(plan: ChangePlan): LoadConcern | undefined;
  /**
   * Present when this kind can be granted for a while (`for 2h`): why this plan cannot be, if so,
   * and what its revert takes back from the service as it is now.
   */
  temporary?: {
    /** Whether this kind's part of the intent grants access the bot can take back (ip add, mysql on). */
    grants(intent: ChangeIntent): boolean;
    /** Why this plan's grant could not be taken back exactly, if so. */
    problem(plan: ChangePlan): string | undefined;
    revert(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void;
    /**
     * The risks the revert will carry (a `start … for` is stopped again; `replicas 6 for 1h` on 3
     * halves them back). The revert asks nobody, so the grant is judged by them too. None when absent.
     */
    revertRisks?(plan: ChangePlan): Risk[];
  };
}

/** Plain values compare as they are (null and undefined alike). */
export const sameScalar = <T>(a: T | null | undefined, b: T | null | undefined): boolean => (a ?? null) === (b ?? null);

export const onOff = (value: boolean) => (value ? 'on' : 'off');

export const unique = (values: string[]) => [...new Set(values.map((v) => v.trim()).filter(Boolean))];

/** Whether the entries under `keys` read the same in two lists (absent in both counts as the same). */
export function sameEntries<T>(
  before: readonly T[],
  now: readonly T[],
  keyOf: (entry: T) => string,
  textOf: (entry: T) => string,
  keys: Iterable<string>,
): boolean {
  const index = (entries: readonly T[]) => new Map(entries.map((entry) => [keyOf(entry), textOf(entry)]));
  const [then, current] = [index(before), index(now)];
  return [...keys].every((key) => then.get(key) === current.get(key));
}
