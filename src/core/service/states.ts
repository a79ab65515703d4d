/**
 * The 14 service states of the official API document, each with a label people read and an icon.
 * `degraded`, `failed` and `partially_running` deserve attention (posture findings);
 * `softdeleted` and `terminated` services are gone for practical purposes.
 */
export const SERVICE_STATES = [
  'starting',
  'stopping',
  'terminating',
  'softdeleting',
  'awaking',
  'partially_running',
  'provisioning',
  'running',
  'stopped',
  'terminated',
  'softdeleted',
  'degraded',
  'failed',
  'idle',
] as const;
export type ServiceState = (typeof SERVICE_STATES)[number];

export interface StateInfo {
  label: string;
  icon: string;
  /** Gone for practical purposes. */
  deleted: boolean;
  /** Worth a posture finding. */
  attention: boolean;
}

const info = (
  label: string,
  icon: string,
  flags: Partial<Pick<StateInfo, 'deleted' | 'attention'>> = {},
): StateInfo => ({
  label,
  icon,
  deleted: flags.deleted ?? false,
  attention: flags.attention ?? false,
});

const STATES: Record<ServiceState, StateInfo> = {
  running: info('running', ':large_green_circle:'),
  idle: info('idle', ':white_circle:'),
  stopped: info('stopped', ':black_circle:'),
  starting: info('starting', ':large_blue_circle:'),
  awaking: info('waking up', ':large_blue_circle:'),
  provisioning: info('provisioning', ':large_blue_circle:'),
  stopping: info('stopping', ':large_yellow_circle:'),
  terminating: info('being deleted (terminating)', ':large_yellow_circle:'),
  softdeleting: info('being deleted (soft delete)', ':large_yellow_circle:'),
  partially_running: info('partially running', ':large_orange_circle:', { attention: true }),
  degraded: info('degraded', ':large_orange_circle:', { attention: true }),
  failed: info('failed', ':red_circle:', { attention: true }),
  terminated: info('deleted (terminated)', ':wastebasket:', { deleted: true }),
  softdeleted: info('deleted (soft-deleted)', ':wastebasket:', { deleted: true }),
};

const isKnownState = (state: string): state is ServiceState => Object.hasOwn(STATES, state);

/** Known states by their table entry; an unknown one (the API may add states) keeps its raw text. */
export function stateInfo(state: string): StateInfo {
  return isKnownState(state) ? STATES[state] : info(state, ':grey_question:');
}

export const isDeletedState = (state: string | undefined): boolean => state !== undefined && stateInfo(state).deleted;
/** On its way from one state to another: a power change waits for it to arrive. */
export const isMovingState = (state: string | undefined): boolean =>
  state === 'starting' || state === 'stopping' || state === 'awaking' || state === 'provisioning';
export const stateNeedsAttention = (state: string | undefined): boolean =>
  state !== undefined && stateInfo(state).attention;
