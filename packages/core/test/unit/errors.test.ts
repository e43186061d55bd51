import { describe, expect, it, vi } from 'vitest';
import {
  CommunicationError,
  InternalError,
  KoloError,
  MismatchError,
  NotInitializedError,
  ShutDownError,
  TimeoutError,
  UnsupportedError,
  fromNative,
} from '../../src/errors/index.js';
import { nativeError } from './fake-binding.js';

describe('error classes', () => {
  it('NotInitializedError has the Horovod-style message and its code', () => {
    const e = new NotInitializedError();
    expect(e.message).toBe('Kolo has not been initialized; call init() first.');
    expect(e.code).toBe('KOLO_NOT_INITIALIZED');
    expect(e.name).toBe('NotInitializedError');
    expect(e).toBeInstanceOf(KoloError);
    expect(e).toBeInstanceOf(Error);
  });

  it.each([
    [ShutDownError, 'KOLO_SHUT_DOWN'],
    [MismatchError, 'KOLO_MISMATCH'],
    [TimeoutError, 'KOLO_TIMEOUT'],
    [CommunicationError, 'KOLO_COMMUNICATION'],
    [UnsupportedError, 'KOLO_UNSUPPORTED'],
    [InternalError, 'KOLO_INTERNAL'],
  ])('%o carries code %s, rank, opName and cause', (Class, code) => {
    const cause = new Error('inner');
    const e = new Class('boom', { rank: 2, opName: 'allreduce.w', cause });
    expect([e.code, e.rank, e.opName, e.cause, e.message]).toEqual([
      code,
      2,
      'allreduce.w',
      cause,
      'boom',
    ]);
    expect(e.name).toBe(Class.name);
  });

  it('isInstance tells the classes apart', () => {
    const mismatch = new MismatchError('x');
    expect(KoloError.isInstance(mismatch)).toBe(true);
    expect(MismatchError.isInstance(mismatch)).toBe(true);
    expect(TimeoutError.isInstance(mismatch)).toBe(false);
    expect(KoloError.isInstance(new Error('x'))).toBe(false);
    expect(KoloError.isInstance(null)).toBe(false);
    expect(KoloError.isInstance('KOLO_MISMATCH')).toBe(false);
  });

  it('isInstance recognises errors from a duplicate copy of the package', async () => {
    vi.resetModules();
    const copy = await import('../../src/errors/index.js');
    const foreign = new copy.CommunicationError('peer died', { failedRank: 3 });
    expect(foreign).not.toBeInstanceOf(CommunicationError);
    expect(KoloError.isInstance(foreign)).toBe(true);
    expect(CommunicationError.isInstance(foreign)).toBe(true);
    expect(ShutDownError.isInstance(foreign)).toBe(false);
    expect(copy.KoloError.isInstance(new MismatchError('m'))).toBe(true);
  });
});

describe('fromNative', () => {
  const context = { rank: 1, opName: 'allreduce.grad' };

  it.each([
    ['KOLO_SHUT_DOWN', ShutDownError],
    ['KOLO_MISMATCH', MismatchError],
    ['KOLO_DUPLICATE_NAME', MismatchError],
    ['KOLO_TIMEOUT', TimeoutError],
    ['KOLO_COMMUNICATION', CommunicationError],
    ['KOLO_UNSUPPORTED', UnsupportedError],
    ['KOLO_INTERNAL', InternalError],
    ['KOLO_SOMETHING_NEW', InternalError],
  ])('maps code %s to %o', (code, Class) => {
    const e = fromNative(nativeError(code, 'x'), context);
    expect(e).toBeInstanceOf(Class);
    expect(e.rank).toBe(1);
    expect(e.opName).toBe('allreduce.grad');
  });

  it('keeps KOLO_DUPLICATE_NAME as the code of the MismatchError', () => {
    expect(fromNative(nativeError('KOLO_DUPLICATE_NAME', 'x'), context).code).toBe(
      'KOLO_DUPLICATE_NAME',
    );
  });

  it('gives a cross-rank mismatch the same text on every rank, naming the tensor', () => {
    const native = nativeError(
      'KOLO_MISMATCH',
      'Mismatched data types: One rank had type float32, but another rank had type int32.',
    );
    const e = fromNative(native, context);
    expect(e.message).toBe(
      'Mismatched data types: One rank had type float32, but ' +
        "another rank had type int32. Every rank must submit 'allreduce.grad' with the same dtype, shape, " +
        'op, root and scale factors.',
    );
    expect(e.cause).toBe(native);
  });

  it('names the first failing rank of a communication failure', () => {
    const e = fromNative(
      nativeError('KOLO_COMMUNICATION', 'Connection closed by peer', 2),
      context,
    );
    expect(CommunicationError.isInstance(e) && e.failedRank).toBe(2);
    expect(e.message).toBe(
      'allreduce.grad failed on rank 1: Connection closed by peer. Rank 2 failed first. ' +
        "This generation has ended; read the failing rank's log, then call shutdown() and init().",
    );
  });

  it('re-attaches the stack captured before the native call', () => {
    function callerInUserCode() {
      return new Error().stack;
    }
    const stack = callerInUserCode();
    const e = fromNative(nativeError('KOLO_TIMEOUT', 'timed out'), { ...context, stack });
    const lines = (e.stack ?? '').split('\n');
    expect(lines[0]).toBe(`TimeoutError: ${e.message}`);
    expect(lines[1]).toContain('callerInUserCode');
  });

  it('wraps errors without a code and non-errors as InternalError', () => {
    const plain = fromNative(new TypeError('bad request'), {});
    expect(plain).toBeInstanceOf(InternalError);
    expect(plain.message).toBe(
      'Kolo request failed: bad request. This is a bug in Kolo; please report it with this message.',
    );
    expect(fromNative('oops', { rank: 0, opName: 'init' }).message).toBe(
      'init failed on rank 0: oops. This is a bug in Kolo; please report it with this message.',
    );
  });

  it('returns Kolo errors unchanged', () => {
    const original = new TimeoutError('t');
    expect(fromNative(original, context)).toBe(original);
  });
});
