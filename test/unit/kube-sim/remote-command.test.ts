/**
 * The pure parts of exec and attach over WebSocket: RFC 6455 frames (server/websocket.ts) and the
 * remote command protocol's negotiation and resize stream (server/remote-command.ts).
 */
import { describe, expect, it } from 'vitest';
import { negotiate, ResizeDecoder, streamStatus } from '../../../infra/kube-sim/server/remote-command.ts';
import {
  acceptKey,
  CLOSE_CODE,
  encodeFrame,
  type FrameError,
  FrameReader,
  OPCODE,
} from '../../../infra/kube-sim/server/websocket.ts';

const MASK = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

describe('WebSocket frames', () => {
  it('computes Sec-WebSocket-Accept as RFC 6455 1.3’s example', () => {
    expect(acceptKey('dGhlIHNhbXBsZSBub25jZQ==')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });

  it('reads RFC 6455 5.7’s masked "Hello"', () => {
    const frame = Buffer.from([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]);
    expect(new FrameReader().push(frame)).toEqual([
      { fin: true, opcode: OPCODE.text, payload: Buffer.from('Hello') },
    ]);
    expect(encodeFrame(OPCODE.text, Buffer.from('Hello'), MASK)).toEqual(frame);
    expect(encodeFrame(OPCODE.text, Buffer.from('Hello'))).toEqual(
      Buffer.from([0x81, 0x05, ...Buffer.from('Hello')]),
    );
  });

  it('uses 16- and 64-bit lengths and reassembles frames split anywhere', () => {
    const medium = Buffer.alloc(300, 7);
    const large = Buffer.alloc(70_000, 9);
    const bytes = Buffer.concat([
      encodeFrame(OPCODE.binary, medium, MASK),
      encodeFrame(OPCODE.binary, large, MASK),
    ]);
    expect(bytes[1]! & 0x7f).toBe(126);
    const reader = new FrameReader();
    const frames = [];
    for (let at = 0; at < bytes.length; at += 997) frames.push(...reader.push(bytes.subarray(at, at + 997)));
    expect(frames.map((f) => f.payload)).toEqual([medium, large]);
  });

  it('refuses what a client must not send', () => {
    const refuse = (bytes: Buffer) => {
      try {
        new FrameReader().push(bytes);
      } catch (err) {
        return (err as FrameError).closeCode;
      }
      return undefined;
    };
    expect(refuse(encodeFrame(OPCODE.binary, Buffer.from('x')))).toBe(CLOSE_CODE.protocolError); // unmasked
    const rsv = encodeFrame(OPCODE.binary, Buffer.from('x'), MASK);
    rsv[0] = rsv[0]! | 0x40; // permessage-deflate was not negotiated
    expect(refuse(rsv)).toBe(CLOSE_CODE.protocolError);
    expect(refuse(encodeFrame(OPCODE.ping, Buffer.alloc(126), MASK))).toBe(CLOSE_CODE.protocolError);
    expect(refuse(encodeFrame(OPCODE.ping, Buffer.alloc(1), MASK, false))).toBe(CLOSE_CODE.protocolError);
    const huge = Buffer.from([0x82, 0xff, 0, 0, 0, 0, 0x7f, 0, 0, 0, ...MASK]);
    expect(refuse(huge)).toBe(CLOSE_CODE.tooBig);
  });
});

describe('remote command subprotocols', () => {
  it('takes v5 whenever it is offered (the apiserver’s translator), else the kubelet’s first known', () => {
    expect(negotiate(['v4.channel.k8s.io', 'v5.channel.k8s.io'])).toEqual({
      protocol: 'v5.channel.k8s.io',
      translated: true,
    });
    // client-node's offer
    expect(
      negotiate([
        'v5.channel.k8s.io',
        'v4.channel.k8s.io',
        'v3.channel.k8s.io',
        'v2.channel.k8s.io',
        'channel.k8s.io',
      ]),
    ).toEqual({ protocol: 'v5.channel.k8s.io', translated: true });
    expect(negotiate(['v3.channel.k8s.io', 'base64.channel.k8s.io', 'v4.channel.k8s.io'])).toEqual({
      protocol: 'base64.channel.k8s.io',
      translated: false,
    });
    expect(negotiate([])).toEqual({ protocol: '', translated: false });
    expect(negotiate(['v3.channel.k8s.io'])).toBeUndefined();
  });

  it('shapes statuses as json.Marshal of metav1.Status', () => {
    expect(JSON.stringify(streamStatus.success())).toBe('{"metadata":{},"status":"Success"}');
    expect(JSON.stringify(streamStatus.exitCode(3, 'command terminated with exit code 3'))).toBe(
      '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}',
    );
  });

  it('decodes terminal sizes as a JSON stream, any case, split or back to back', () => {
    const decoder = new ResizeDecoder();
    expect(decoder.push('{"Width":80,"Height":24}\n')).toEqual([{ width: 80, height: 24 }]);
    expect(decoder.push('{"height":40,"wid')).toEqual([]);
    expect(decoder.push('th":132}{"Width":1,"Height":2}')).toEqual([
      { width: 132, height: 40 },
      { width: 1, height: 2 },
    ]);
    // After a value that does not decode, Go's decoder loop stops: later sizes are not read.
    expect(decoder.push('[1] {"Width":5,"Height":5}')).toEqual([]);
    expect(decoder.push('{"Width":6,"Height":6}')).toEqual([]);
  });
});
