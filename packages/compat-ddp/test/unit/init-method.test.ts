import { describe, expect, it } from 'vitest';
import { parseInitMethod } from '../../src/init-method.js';
import { tcpSecret } from '../../src/rendezvous-start.js';

const none = { rank: -1, worldSize: -1 };
const master = { MASTER_ADDR: '10.0.0.1', MASTER_PORT: '29500' };
const envError = (name: string) => `Error initializing torch.distributed using env:// rendezvous: environment variable ${name} expected, but not set`;

describe('parseInitMethod', () => {
  it("reads env:// from MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE with torch's messages", () => {
    expect(() => parseInitMethod('env://', none, master)).toThrow(envError('RANK'));
    expect(() => parseInitMethod('env://', none, { ...master, RANK: '0' })).toThrow(envError('WORLD_SIZE'));
    expect(() => parseInitMethod('env://', { rank: 1, worldSize: 2 }, { MASTER_PORT: '1' })).toThrow(envError('MASTER_ADDR'));
    expect(() => parseInitMethod('env://', { rank: 1, worldSize: 2 }, { MASTER_ADDR: 'h', MASTER_PORT: '' })).toThrow(envError('MASTER_PORT'));
    expect(parseInitMethod('env://', { rank: 1, worldSize: 2 }, master)).toEqual({ kind: 'tcp', host: '10.0.0.1', port: 29500, rank: 1, worldSize: 2 });
    expect(() => parseInitMethod('env://', { rank: 0, worldSize: 1 }, { MASTER_ADDR: 'h', MASTER_PORT: '70000' })).toThrow('port must have value from 0 to 65535 but was 70000');
  });

  it('leaves env:// to @kolo/core under kolorun, horovodrun, mpirun and torchrun', () => {
    expect(parseInitMethod('env://', none, { KOLO_RANK: '0', KOLO_SIZE: '2' })).toEqual({ kind: 'launcher' });
    expect(parseInitMethod('env://', none, { OMPI_COMM_WORLD_RANK: '1' })).toEqual({ kind: 'launcher' });
    expect(parseInitMethod('env://', none, { ...master, RANK: '1', WORLD_SIZE: '2' })).toEqual({ kind: 'launcher' });
  });

  it("parses tcp:// with torch's messages for a missing port, rank or world size", () => {
    expect(parseInitMethod('tcp://127.0.0.1:23456', { rank: 0, worldSize: 2 }, {})).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 23456, rank: 0, worldSize: 2 });
    expect(parseInitMethod('tcp://node1:80?rank=1&world_size=3', none, {})).toEqual({ kind: 'tcp', host: 'node1', port: 80, rank: 1, worldSize: 3 });
    expect(() => parseInitMethod('tcp://127.0.0.1', { rank: 0, worldSize: 2 }, {})).toThrow('Error initializing torch.distributed using tcp:// rendezvous: port number missing');
    expect(() => parseInitMethod('tcp://h:1', { rank: -1, worldSize: 2 }, {})).toThrow('Error initializing torch.distributed using tcp:// rendezvous: rank parameter missing');
    expect(() => parseInitMethod('tcp://h:1', { rank: 0, worldSize: -1 }, {})).toThrow('Error initializing torch.distributed using tcp:// rendezvous: world size parameter missing');
  });

  it('parses file:// paths and names unknown schemes as torch does', () => {
    expect(parseInitMethod('file:///shared/job%201', { rank: 1, worldSize: 2 }, {})).toEqual({ kind: 'file', path: '/shared/job 1', rank: 1, worldSize: 2 });
    expect(() => parseInitMethod('file://', { rank: 0, worldSize: 1 }, {})).toThrow('Error initializing torch.distributed using file:// rendezvous: path missing');
    expect(() => parseInitMethod('foo://x', none, {})).toThrow(expect.objectContaining({ name: 'RuntimeError', message: 'No rendezvous handler for foo://' }));
  });

  it('derives the tcp store secret from the address unless KOLO_JOB_SECRET is set', () => {
    expect(tcpSecret('10.0.0.1', 23456, {})).toBe('torch-tcp:10.0.0.1:23456');
    expect(tcpSecret('10.0.0.1', 23456, { KOLO_JOB_SECRET: 's3cret' })).toBe('s3cret');
  });
});
