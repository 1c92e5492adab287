import { describe, expect, it } from 'vitest';
import { hostsOf } from '../../src/adapters/postgres/hosts.js';

describe('the servers of a POSTGRES_URL', () => {
  it('are those of a multi-host URL in order, 5432 where no port is given', () => {
    expect(hostsOf('postgres://nature:pw@db1:5433,db2,[::1]:5434/nature?target_session_attrs=read-write')).toEqual([
      { host: 'db1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '::1', port: 5434 },
    ]);
  });

  it('are left to the driver when the URL names one server', () => {
    expect(hostsOf('postgres://nature:p,w@db1:5432/nature')).toBeUndefined();
    expect(hostsOf('postgresql://db1/nature?application_name=a,b')).toBeUndefined();
  });
});
