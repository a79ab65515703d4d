import { describe, expect, it } from 'vitest';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';

describe('the service record', () => {
  it('reads a blank id-like field as absent (an empty byocId is not BYOC)', () => {
    const record = ServiceRecordSchema.parse({
      id: 's-1',
      name: 'orders',
      byocId: '',
      dataWarehouseId: '  ',
      transparentDataEncryptionKeyId: '',
      encryptionRoleId: '',
      privateEndpointIds: ['', 'vpce-1'],
    });
    expect(record.byocId).toBeUndefined();
    expect(record.dataWarehouseId).toBeUndefined();
    expect(record.transparentDataEncryptionKeyId).toBeUndefined();
    expect(record.encryptionRoleId).toBeUndefined();
    expect(record.privateEndpointIds).toStrictEqual(['vpce-1']);
  });

  it('keeps a real id as it is', () => {
    expect(ServiceRecordSchema.parse({ id: 's-1', name: 'x', byocId: 'byoc-1' }).byocId).toBe('byoc-1');
  });
});
