/**
 * The bot's Home tab (issue 25), built from the store and published with views.publish: when a
 * person opens it (app_home_opened), and when a request that concerns them moves (its requester,
 * and the people who may approve it: the approval policy's eligibility, user groups and escalation
 * included). Never on a timer. Refreshes are queued, coalesced per person and published one at a
 * time in the background, so a click's answer never waits for them; a failure is logged.
 */
import { FINAL_STATUSES, type ChangeRequest } from '../core/change/types.js';
import { homeView, HOME_FINISHED_SHOWN, HOME_OPEN_SHOWN } from '../core/render/home.js';
import type { TemporaryEntry } from '../core/render/temporary.js';
import type { View } from '../core/render/mrkdwn.js';
import type { ChangeStore } from '../ports/change-store.js';
import type { Log } from '../ports/log.js';
import type { Messenger } from '../ports/messenger.js';
import { isUserId } from '../core/policy/progress.js';
import type { ApproverPolicy } from './approvers.js';

/** Pending requests read for one refresh (all of them in any sane deployment). */
const OPEN_READ = 500;
/** Audit entries looked through for a person's recent requests (newest first). */
const AUDIT_READ = 500;
/** Scheduled reverts read for the temporary changes. */
const TEMPORARY_READ = 200;
/** People one moving request refreshes at most (a huge group is told when they open the tab). */
const MAX_PEOPLE_PER_REQUEST = 50;
/** A Home opened within this long is redrawn when a request of its person moves. */
const HOME_LOOKED_AT_MS = 30 * 24 * 3_600_000;
/** People waiting for a refresh at most; beyond, refreshes are dropped (and logged) until it drains. */
const MAX_QUEUED = 1_000;
/**
 * How long this process trusts what it read of who opened their Home: the moves of one approval
 * (approved, then applied a few milliseconds later) ask Redis once. A Home opened on another
 * replica within this window is redrawn at the next move after it.
 */
const OPENED_READ_KEPT_MS = 2_000;
/** People whose answer is kept at most; past it the memory starts over. */
const OPENED_READ_MAX = 10_000;

export interface HomeTabsOptions {
  store: ChangeStore;
  messenger: Pick<Messenger, 'publishHome'>;
  policy: Pick<ApproverPolicy, 'mayApprove' | 'approversOf'>;
  logger: Pick<Log, 'warn'>;
  now: () => number;
}

/** What every Home of one refresh reads: the store once, then each person's view from it. */
interface Snapshot {
  open: ChangeRequest[];
  /** Request ids by requester, newest first, from the audit's "requested" entries. */
  askedBy: Map<string, string[]>;
  temporary: TemporaryEntry[];
  requests: Map<string, Promise<ChangeRequest | undefined>>;
}

export class HomeTabs {
  private readonly queued = new Set<string>();
  private draining: Promise<void> | undefined;
  /** Moves whose people are being worked out (then queued). */
  private readonly resolving = new Set<Promise<void>>();
  /** Whether each person had opened their Home, as read lately (monotonic ms). */
  private readonly openedRead = new Map<string, { at: number; opened: boolean }>();

  constructor(private readonly options: HomeTabsOptions) {}

  /** Someone opened the tab: their Home, now (settles once it is published or the failure logged). */
  opened(userId: string): Promise<void> {
    // Remembered across replicas: from now on, moves redraw this person's Home too.
    this.openedRead.set(userId, { at: performance.now(), opened: true });
    void this.options.store
      .noteHomeOpened(userId, this.options.now())
      .catch((error: unknown) =>
        this.options.logger.warn(`could not note that ${userId} opened Home: ${String(error)}`),
      );
    this.enqueue([userId]);
    return this.idle();
  }

  /** A request moved: the Homes of the people it concerns are refreshed in the background. Never throws. */
  moved(request: ChangeRequest | string): void {
    const work = this.peopleOf(request).then(
      (people) => this.enqueue(people),
      (error: unknown) =>
        this.options.logger.warn(
          `could not refresh the Home tabs of ${typeof request === 'string' ? request : request.id}: ${String(error)}`,
        ),
    );
    this.resolving.add(work);
    void work.finally(() => this.resolving.delete(work));
  }

  /** Settles when every refresh queued so far is done (tests; a graceful stop). */
  async idle(): Promise<void> {
    while (this.draining || this.resolving.size > 0) {
      await Promise.all(this.resolving);
      await this.draining;
    }
  }

  /** One person's Home as it is now. */
  async build(userId: string): Promise<View> {
    return this.viewOf(userId, await this.snapshot());
  }

  private async peopleOf(moved: ChangeRequest | string): Promise<string[]> {
    const request = typeof moved === 'string' ? await this.options.store.get(moved) : moved;
    if (!request) return [];
    const approvers = await this.options.policy.approversOf(request);
    const concerned = [request.requesterId, ...(request.beneficiaryId ? [request.beneficiaryId] : []), ...approvers];
    // Only Slack user ids have a Home tab (a revert's requester may be the bot itself).
    const people = [...new Set(concerned)].filter(isUserId).slice(0, MAX_PEOPLE_PER_REQUEST);
    // Only the Homes someone looks at are redrawn when a request moves: a person who never opened the
    // tab (or not for a month) gets theirs drawn when they do. If the store cannot say, all of them.
    return this.lookingAtHome(people).catch(() => people);
  }

  /** Of these people, those who opened their Home lately; read from the store unless read just now. */
  private async lookingAtHome(people: string[]): Promise<string[]> {
    const now = performance.now();
    const unknown = people.filter(
      (userId) => !(now - (this.openedRead.get(userId)?.at ?? -Infinity) < OPENED_READ_KEPT_MS),
    );
    if (unknown.length > 0) {
      const opened = new Set(
        await this.options.store.homesOpenedSince(unknown, this.options.now() - HOME_LOOKED_AT_MS),
      );
      if (this.openedRead.size > OPENED_READ_MAX) this.openedRead.clear();
      for (const userId of unknown) this.openedRead.set(userId, { at: now, opened: opened.has(userId) });
    }
    return people.filter((userId) => this.openedRead.get(userId)?.opened ?? true);
  }

  private enqueue(people: readonly string[]): void {
    for (const userId of people) {
      if (this.queued.size >= MAX_QUEUED) {
        this.options.logger.warn(`Home tab refreshes: ${MAX_QUEUED} people already waiting; ${userId} skipped`);
        break;
      }
      this.queued.add(userId);
    }
    if (!this.draining && this.queued.size > 0)
      this.draining = this.drain().finally(() => {
        this.draining = undefined;
      });
  }

  /** Publishes the queued Homes, one at a time; people queued meanwhile get a fresh read after. */
  private async drain(): Promise<void> {
    while (this.queued.size > 0) {
      // One turn of the event loop first: the several moves of one click are drawn once.
      await new Promise((resolve) => setImmediate(resolve));
      const people = [...this.queued];
      this.queued.clear();
      let snapshot: Snapshot;
      try {
        snapshot = await this.snapshot();
      } catch (error) {
        this.options.logger.warn(`could not read the store for ${people.length} Home tab(s): ${String(error)}`);
        continue;
      }
      for (const userId of people) {
        try {
          await this.options.messenger.publishHome(userId, await this.viewOf(userId, snapshot));
        } catch (error) {
          this.options.logger.warn(`could not publish the Home tab of ${userId}: ${String(error)}`);
        }
      }
    }
  }

  private async snapshot(): Promise<Snapshot> {
    const { store, now } = this.options;
    const requests = new Map<string, Promise<ChangeRequest | undefined>>();
    const [pending, scheduledIds, audit, reverts] = await Promise.all([
      store.listOpen(now(), OPEN_READ),
      // Every scheduled request, soonest first: they wait days at times, past the recent audit.
      store.dueScheduled(Number.MAX_SAFE_INTEGER, OPEN_READ),
      store.readAudit({ limit: AUDIT_READ }),
      store.scheduledReverts(),
    ]);
    const scheduled = await Promise.all(scheduledIds.map((id) => store.get(id)));
    const open = [...pending, ...scheduled.filter((r): r is ChangeRequest => r?.status === 'scheduled')];
    const askedBy = new Map<string, string[]>();
    for (const entry of audit) {
      if (entry.action !== 'requested') continue;
      const ids = askedBy.get(entry.actorId) ?? [];
      if (!ids.includes(entry.changeId)) ids.push(entry.changeId);
      askedBy.set(entry.actorId, ids);
    }
    const temporary: Snapshot['temporary'] = [];
    for (const revert of reverts.slice(0, TEMPORARY_READ)) {
      const request = await store.get(revert.id);
      if (request?.status === 'applied' && request.temporary) temporary.push({ ...revert, request });
    }
    return { open, askedBy, temporary, requests };
  }

  private async viewOf(userId: string, snapshot: Snapshot): Promise<View> {
    const { store, policy, now } = this.options;
    const waiting: ChangeRequest[] = [];
    for (const request of snapshot.open)
      if (request.status === 'pending' && !request.revertOf && (await policy.mayApprove(userId, request)))
        waiting.push(request);
    const mine = new Map<string, ChangeRequest>();
    for (const request of snapshot.open) if (request.requesterId === userId) mine.set(request.id, request);
    // Their latest requests, for those applying and the last few finished.
    let finished = 0;
    for (const id of (snapshot.askedBy.get(userId) ?? []).slice(0, HOME_OPEN_SHOWN + HOME_FINISHED_SHOWN)) {
      if (mine.has(id) || finished >= HOME_FINISHED_SHOWN) continue;
      const cached = snapshot.requests.get(id) ?? store.get(id);
      snapshot.requests.set(id, cached);
      const request = await cached;
      if (!request || request.requesterId !== userId) continue;
      if (FINAL_STATUSES.includes(request.status)) finished += 1;
      else if (request.status !== 'applying') continue;
      mine.set(request.id, request);
    }
    const temporary = snapshot.temporary.filter(({ request }) => request.requesterId === userId);
    return homeView({ userId, waiting, mine: [...mine.values()], temporary, now: now() });
  }
}
