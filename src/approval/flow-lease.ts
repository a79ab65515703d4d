/**
 * Sending under a lease: the lease held and renewed while a request is applied, the service's
 * lock, the confirmation right before each operation goes on the wire, the record of confirmed
 * operations, and the one table from an operation's endpoint to the Cloud client's call.
 * A replica that lost its lease sends and records nothing (the store checks the fence).
 */
import type { FlowEvent } from '../core/approval/types.js';
import type { ChangeRequest, Operation, OperationResult } from '../core/change/types.js';
import type { ServiceRecord } from '../core/service/schema.js';
import { messageOf } from '../core/render/errors.js';
import { CloudApiError } from '../core/service/api-error.js';
import {
  SendWindowClosedError,
  type ChangeStore,
  type LeaseToken,
  type Log,
  type ServiceDirectory,
  type ServiceUpdateResult,
  type UpdateOptions,
} from '../ports/index.js';
import { holdLease, LeaseLostError, type LeaseHold } from './lease.js';
import type { SecretDeliveryService } from '../ports/secret-vault.js';
import { hashesOf } from '../core/change/kinds/password.js';

export interface LeasedSenderOptions {
  store: ChangeStore;
  leaseMs: number;
  logger: Pick<Log, 'info' | 'warn' | 'error'>;
  /** Where a secret in an operation's answer (a reset password) goes, and nowhere else. */
  deliverSecret?: SecretDeliveryService['deliver'] | undefined;
  /** Gets back, once, what a request keeps sealed until it is sent (the hashes of a with-hash reset). */
  takeSecret?: SecretDeliveryService['take'] | undefined;
}

/** Who a secret an answer carries is for: the requester of the request being applied. */
export type SecretOwner = Pick<ChangeRequest, 'requesterId'> & { plan: Pick<ChangeRequest['plan'], 'serviceName'> };

export class LeasedSender {
  /** Ids of the requests this process is applying right now; never reconciled from here. */
  readonly applyingHere = new Set<string>();

  constructor(private readonly options: LeasedSenderOptions) {}

  /** Starts holding the request's lease (renewed every quarter) and marks it as applied here. */
  hold(request: ChangeRequest): LeaseHold {
    this.applyingHere.add(request.id);
    return holdLease(this.options.store, leaseTokenOf(request), this.options.leaseMs, this.options.logger);
  }

  release(hold: LeaseHold): void {
    hold.release();
    this.applyingHere.delete(hold.lease.token.requestId);
  }

  async lockService(hold: LeaseHold | undefined): Promise<FlowEvent> {
    const lease = hold?.lease;
    if (!lease || lease.lost) return { type: 'lock-answered', attempt: 'lost', leaseLost: true };
    const attempt = await this.options.store.lockService(lease.token, this.options.leaseMs);
    return { type: 'lock-answered', attempt, leaseLost: lease.lost };
  }

  /** The store's record of the operations confirmed so far, under this lease. */
  async recordConfirmed(
    hold: LeaseHold | undefined,
    results: OperationResult[],
  ): Promise<'recorded' | 'lost' | 'unavailable'> {
    const lease = hold?.lease;
    if (!lease || lease.lost) return 'lost';
    try {
      return (await this.options.store.recordConfirmed(lease.token, results)) ? 'recorded' : 'lost';
    } catch (error) {
      this.options.logger.warn(
        `change ${lease.token.requestId}: could not record its confirmed operations: ${messageOf(error)}`,
      );
      return 'unavailable';
    }
  }

  /** Sends one operation; the fence check runs right before the bytes leave. */
  async send(
    hold: LeaseHold | undefined,
    cloud: ServiceDirectory,
    index: number,
    operation: Operation,
    service?: ServiceRecord,
    owner?: SecretOwner,
  ): Promise<FlowEvent> {
    if (!hold) return { type: 'send-refused', index };
    const serviceId = hold.lease.token.serviceId;
    try {
      const unsealed = await this.unsealed(operation, owner);
      const sent = await sendOperation(cloud, serviceId, unsealed, service, {
        beforeSend: () => this.confirmSending(hold),
      });
      const result = await this.withSecretDelivered(sent, owner);
      return { type: 'operation-answered', index, apiRequestId: result.requestId, service: result.service };
    } catch (error) {
      if (error instanceof LeaseLostError || error instanceof SendWindowClosedError)
        return { type: 'send-refused', index };
      return { type: 'operation-failed', index, error: error instanceof CloudApiError ? error : undefined };
    }
  }

  /**
   * A password write naming sealed hashes gets them from the vault (taken: forgotten there), right
   * before it is sent; they live only in this call. Gone (expired, or kept in another replica's
   * memory without SECRETS_KEY): nothing is sent, and the requester is told to ask again.
   */
  private async unsealed(operation: Operation, owner?: SecretOwner): Promise<Operation> {
    if (operation.endpoint !== 'part' || operation.part !== 'password') return operation;
    const sealed = operation.body?.sealedHashes;
    if (sealed === undefined) return operation;
    const text = owner && (await this.options.takeSecret?.(sealed, owner.requesterId));
    const hashes = text === undefined ? undefined : hashesOf(text);
    if (!hashes)
      throw new CloudApiError(
        'invalid-request',
        'The password hashes given in the form are no longer kept (they are dropped once used, when the request expires, or kept only in the memory of another bot replica without SECRETS_KEY), so nothing was sent. Run reset-password SERVICE with-hash again',
      );
    const body = {
      newPasswordHash: hashes.passwordHash,
      ...(hashes.doubleSha1Hash === undefined ? {} : { newDoubleSha1Hash: hashes.doubleSha1Hash }),
    };
    return { ...operation, body };
  }

  /**
   * A reset password in the answer goes to the requester (DM with Reveal) here, and the answer
   * goes on with only whether it was delivered and to whom: the step machine, the store, the
   * messages and the audit never see it. No one to deliver it to: it is dropped, and said so.
   */
  private async withSecretDelivered(result: ServiceUpdateResult, owner?: SecretOwner): Promise<ServiceUpdateResult> {
    const answer = result.service.parts?.password;
    if (!answer || answer.password === undefined) return result;
    const { password, ...rest } = answer;
    const to = owner?.requesterId ?? '';
    let delivered = false;
    if (this.options.deliverSecret && to !== '') {
      const label = `the new password of ${owner?.plan.serviceName || result.service.name || result.service.id}`;
      try {
        delivered = (await this.options.deliverSecret({ ownerId: to, value: password, label })).delivered;
      } catch {
        // Not the error itself: nothing of the secret may reach a log line.
        this.options.logger.warn(`the new password of ${result.service.id} could not be kept for its Reveal`);
      }
    }
    const parts = { ...result.service.parts, password: { ...rest, delivery: { to, delivered } } };
    return { ...result, service: { ...result.service, parts } };
  }

  /**
   * The fence check right before an operation goes on the wire. Answers the time by which it must
   * have left: a process frozen after the check for longer than a quarter lease sends nothing
   * when it wakes (the client checks the clock right before sending).
   */
  private async confirmSending(hold: LeaseHold): Promise<number> {
    const { store, leaseMs } = this.options;
    const lease = hold.lease;
    // Half a lease left at least: a lease renewed every quarter has three quarters after a renewal,
    // so less means the renewals stopped (a pause) and another replica may be about to take over.
    // One slow renewal is forgiven: renew once, then ask again.
    const confirm = () => store.confirmSending(lease.token, leaseMs / 2);
    if (lease.lost) throw new LeaseLostError(lease.token.requestId);
    if (!(await confirm()) && !((await store.renewLease(lease.token, leaseMs)) && (await confirm()))) {
      throw new LeaseLostError(lease.token.requestId);
    }
    return Date.now() + leaseMs / 4;
  }
}

/** The one table from an operation's endpoint to the Cloud client's call. */
async function sendOperation(
  cloud: ServiceDirectory,
  serviceId: string,
  operation: Operation,
  service: ServiceRecord | undefined,
  options: UpdateOptions,
): Promise<ServiceUpdateResult> {
  switch (operation.endpoint) {
    case 'update':
      return cloud.updateService(serviceId, operation.body, options);
    case 'replicaScaling':
      return cloud.scaleReplicas(serviceId, operation.body, options);
    case 'state':
      return cloud.changeState(serviceId, operation.body.command, options);
    case 'part': {
      const { value, requestId } = await cloud.writePart(serviceId, operation.part, operation.body, options);
      // The answer is the part alone: the record to post is the one last read, with the part as it is now.
      const record = service ?? { id: serviceId, name: '' };
      return { service: { ...record, parts: { ...record.parts, [operation.part]: value } }, requestId };
    }
    case 'delete': {
      const { requestId } = await cloud.deleteService(serviceId, options);
      return { service: { ...(service ?? { id: serviceId, name: '' }), state: 'terminating' }, requestId };
    }
    case 'member': {
      const { member, requestId } = await cloud.updateMember(operation.userId, operation.body, options);
      const target = service?.organizationTarget;
      const roles = target?.type === 'member' ? target.roles : [];
      const record = { id: serviceId, name: member.email, ...service };
      return { service: { ...record, organizationTarget: { type: 'member', member, roles } }, requestId };
    }
    case 'apiKey': {
      const { key, requestId } = await cloud.updateKey(operation.keyId, operation.body, options);
      const target = service?.organizationTarget;
      const rest = target?.type === 'apiKey' ? target : { roles: [], ownKeyId: '' };
      const record = { id: serviceId, name: key.name, ...service };
      return { service: { ...record, organizationTarget: { ...rest, type: 'apiKey', key } }, requestId };
    }
  }
}

function leaseTokenOf(request: ChangeRequest): LeaseToken {
  if (!request.lease) throw new Error(`change ${request.id}: claimed without a lease`);
  return {
    requestId: request.id,
    serviceId: request.plan.serviceId,
    owner: request.lease.owner,
    fence: request.lease.fence,
  };
}
