import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { peekHead } from './peek-head';

async function collect(r: Readable): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of r) out.push(c as Buffer);
  return Buffer.concat(out);
}

const chunked = (...parts: string[]) =>
  Readable.from(
    parts.map((p) => Buffer.from(p)),
    { objectMode: false },
  );

describe('peekHead', () => {
  it('reads the first bytes across chunks and gives back the whole content', async () => {
    const { head, body } = await peekHead(chunked('ab', 'cd', 'efgh', 'ij'), 5);
    expect(head.toString()).toBe('abcde');
    expect((await collect(body)).toString()).toBe('abcdefghij');
  });

  it('gives a shorter head for a shorter stream, and an empty one for an empty stream', async () => {
    const short = await peekHead(chunked('abc'), 16);
    expect(short.head.toString()).toBe('abc');
    expect((await collect(short.body)).toString()).toBe('abc');
    const empty = await peekHead(chunked(), 16);
    expect(empty.head).toHaveLength(0);
    expect(await collect(empty.body)).toHaveLength(0);
  });

  it("passes the source's error on, during the peek and after it", async () => {
    const failing = (after: number) =>
      new Readable({
        read() {
          if (after-- > 0) this.push(Buffer.from('0123456789'));
          else this.destroy(new Error('client went away'));
        },
      });
    await expect(peekHead(failing(0), 16)).rejects.toThrow('client went away');
    const { body } = await peekHead(failing(2), 16);
    await expect(collect(body)).rejects.toThrow('client went away');
  });

  it('destroys the source when the consumer stops early', async () => {
    let pushed = 0;
    const source = new Readable({
      read() {
        this.push(Buffer.alloc(1024, pushed++ % 256));
      },
    });
    const { body } = await peekHead(source, 16);
    await expect(
      pipeline(
        body,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const c of chunks) {
            yield c;
            throw new Error('store failed');
          }
        },
        async function (out: AsyncIterable<Buffer>) {
          for await (const c of out) void c;
        },
      ),
    ).rejects.toThrow('store failed');
    await new Promise((r) => setImmediate(r));
    expect(source.destroyed).toBe(true);
  });
});
