import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import amqp, { type Channel } from 'amqplib';
import { pino } from 'pino';
import { EVENTS_EXCHANGE } from '@tix/protos';
import {
  assertEventsExchange,
  BrokerUnavailableError,
  connectBroker,
  privateQueue,
  startConsumer,
  type Broker,
  type BrokerOptions,
  type ConsumeOptions,
  type Consumer,
  type Logger,
} from '../../src/index.js';
import {
  createTestVhost,
  eventually,
  startTcpProxy,
  type TcpProxy,
  type TestVhost,
} from '../../src/testing/index.js';

/** Fast reconnects, so an outage in a test costs milliseconds. */
const FAST = { initialMs: 20, maxMs: 200 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger that records what it was told (level name and message). */
function recordingLogger(): { logger: Logger; lines: { level: string; msg: string; err?: unknown }[] } {
  const lines: { level: string; msg: string; err?: unknown }[] = [];
  const logger = pino(
    { level: 'debug', formatters: { level: (label) => ({ level: label }) } },
    { write: (line: string) => lines.push(JSON.parse(line) as (typeof lines)[number]) },
  );
  return { logger, lines };
}

/** A promise the test resolves by hand (a handler that stays busy until told). */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('broker connection layer (real RabbitMQ vhost)', function () {
  this.timeout(60_000);
  let vhost: TestVhost;
  let proxy: TcpProxy;
  /** AMQP_URL of the vhost through the proxy the tests cut. */
  let viaProxy: string;
  let inspector: amqp.ChannelModel;
  let inspect: Channel;
  let proxyCut = false;
  const cutProxy = async () => {
    await proxy.cut();
    proxyCut = true;
  };
  const restoreProxy = async () => {
    await proxy.restore();
    proxyCut = false;
  };
  let testNumber = 0;
  /** A plain connection of the test's own, to look at queues. */
  const openInspector = async () => {
    inspector = await amqp.connect(vhost.url);
    inspector.on('error', () => undefined);
    inspect = await inspector.createChannel();
    inspect.on('error', () => undefined);
  };
  const cleanUp: (() => Promise<unknown>)[] = [];

  before(async () => {
    vhost = await createTestVhost('broker');
    const target = new URL(vhost.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5672) });
    target.port = String(proxy.port);
    viaProxy = target.toString();
    await openInspector();
  });
  afterEach(async () => {
    for (const step of cleanUp.splice(0).reverse()) await step();
    if (proxyCut) await restoreProxy();
  });
  after(async () => {
    await inspector.close().catch(() => undefined);
    await proxy.close();
    await vhost.drop();
  });

  /**
   * A fresh work queue per test (bound to EVENTS_EXCHANGE by `<name>.#`) with a dead-letter queue,
   * and a broker whose topology declares them.
   */
  function setUp(overrides: Partial<BrokerOptions> = {}) {
    testNumber += 1;
    const queue = `test.work.${testNumber}`;
    const deadLetters = `${queue}.dead`;
    const topology = async (channel: Channel) => {
      await assertEventsExchange(channel);
      await channel.assertExchange(`${queue}.dlx`, 'fanout', { durable: false, autoDelete: false });
      await channel.assertQueue(deadLetters, { durable: true });
      await channel.bindQueue(deadLetters, `${queue}.dlx`, '');
      await channel.assertQueue(queue, {
        durable: true,
        arguments: { 'x-dead-letter-exchange': `${queue}.dlx` },
      });
      await channel.bindQueue(queue, EVENTS_EXCHANGE, `${queue}.#`);
    };
    const { logger, lines } = recordingLogger();
    const open = (options: Partial<BrokerOptions> = {}): Broker => {
      const broker = connectBroker({
        url: viaProxy,
        logger,
        name: 'test',
        topology,
        reconnect: FAST,
        ...overrides,
        ...options,
      });
      cleanUp.push(() => broker.close());
      return broker;
    };
    /** Publishes straight to the vhost (not through the proxy), confirmed. */
    const send = async (...bodies: string[]) => {
      const producer = open({ url: vhost.url });
      await producer
        .publisher()
        .publish(bodies.map((body) => ({ routingKey: `${queue}.event`, content: Buffer.from(body) })));
    };
    const depth = async (name = queue) => (await inspect.checkQueue(name)).messageCount;
    const deadLettered = async () => {
      const bodies: string[] = [];
      for (;;) {
        const message = await inspect.get(deadLetters, { noAck: true });
        if (!message) return bodies;
        bodies.push(message.content.toString());
      }
    };
    /**
     * Consumes the test's queue as text on `broker` (a new one by default), 5 at a time unless
     * `options` say otherwise; each body goes into `into` unless they give a handler of their own.
     */
    const consumeText = (
      options: Partial<ConsumeOptions<string>> & { into?: string[] },
      broker: Broker = open(),
    ): Consumer => {
      const { into, ...rest } = options;
      return broker.consume({
        queue,
        prefetch: 5,
        decode: (content) => content.toString(),
        handle: (body) => {
          into?.push(body);
        },
        ...rest,
      });
    };
    return { queue, topology, lines, open, send, depth, deadLettered, consumeText };
  }

  it('publishes with confirms and acknowledges each message once its handler resolved', async () => {
    const { send, depth, consumeText } = setUp();
    const handled: string[] = [];
    const consumer = consumeText({ into: handled, prefetch: 10 });
    await eventually(() => consumer.isConsuming());
    await send('one', 'two', 'three');
    await eventually(() => handled.length === 3);
    expect(handled).to.deep.equal(['one', 'two', 'three']);
    await consumer.stop(1_000);
    expect(await depth()).to.equal(0); // acked: nothing went back to the queue with the channel
  });

  it('acknowledges only after the handler resolved: a message in progress when the connection drops is delivered again', async () => {
    const { send, depth, consumeText } = setUp();
    const firstAttempt = gate();
    const deliveries: string[] = [];
    const consumer = consumeText({
      prefetch: 1,
      handle: async (body) => {
        deliveries.push(body);
        if (deliveries.length === 1) await firstAttempt.promise;
      },
    });
    await eventually(() => consumer.isConsuming());
    await send('slow');
    await eventually(() => deliveries.length === 1);
    await cutProxy();
    await eventually(() => !consumer.isConsuming());
    firstAttempt.open(); // resolves on a dead channel: its ack cannot count
    await restoreProxy();
    await eventually(() => deliveries.length === 2);
    expect(deliveries).to.deep.equal(['slow', 'slow']);
    await consumer.stop(1_000);
    expect(await depth()).to.equal(0);
  });

  it('retries a transient handler failure in place, and dead-letters a permanent one', async () => {
    const { queue, send, depth, deadLettered, consumeText } = setUp();
    const attempts = new Map<string, number>();
    const consumer = consumeText({
      handle: (body) => {
        const attempt = (attempts.get(body) ?? 0) + 1;
        attempts.set(body, attempt);
        if (body === 'flaky' && attempt < 3) throw new Error('transient');
        if (body === 'poison') throw new Error('permanent');
      },
      isTransient: (error) => (error as Error).message === 'transient',
    });
    await eventually(() => consumer.isConsuming());
    await send('flaky', 'poison', 'fine');
    await eventually(async () => attempts.get('flaky') === 3 && (await depth(`${queue}.dead`)) === 1);
    expect(attempts.get('poison')).to.equal(1);
    expect(attempts.get('fine')).to.equal(1);
    expect(await deadLettered()).to.deep.equal(['poison']);
    await consumer.stop(1_000);
    expect(await depth()).to.equal(0);
  });

  it('dead-letters an unreadable message without calling the handler; the ones behind it keep flowing', async () => {
    const { queue, open, send, deadLettered, lines } = setUp();
    const handled: number[] = [];
    const consumer = open().consume({
      queue,
      prefetch: 5,
      decode: (content) => {
        const value = Number(content.toString());
        return Number.isInteger(value) ? value : null;
      },
      handle: (value) => {
        handled.push(value);
      },
    });
    await eventually(() => consumer.isConsuming());
    await send('1', 'not a number', '2');
    await eventually(() => handled.length === 2);
    expect(handled).to.deep.equal([1, 2]);
    expect(await eventually(async () => (await deadLettered()).at(0))).to.equal('not a number');
    expect(lines.some((line) => line.msg.includes('unreadable message rejected'))).to.equal(true);
  });

  it('never holds more than `prefetch` messages unacknowledged', async () => {
    const { send, depth, consumeText } = setUp();
    const release = gate();
    let busy = 0;
    let mostBusy = 0;
    let done = 0;
    const consumer = consumeText({
      prefetch: 3,
      handle: async () => {
        busy += 1;
        mostBusy = Math.max(mostBusy, busy);
        await release.promise;
        busy -= 1;
        done += 1;
      },
    });
    await eventually(() => consumer.isConsuming());
    await send(...Array.from({ length: 10 }, (_, i) => `m${i}`));
    await eventually(() => busy === 3);
    await pause(300);
    expect(busy).to.equal(3);
    expect(await depth()).to.equal(7);
    release.open();
    await eventually(() => done === 10);
    expect(mostBusy).to.equal(3);
  });

  it('reconnects after the connection drops: consumes and publishes again, one warning per outage', async () => {
    const { queue, open, send, lines, consumeText } = setUp();
    const connectionChanges: boolean[] = [];
    const consumingChanges: boolean[] = [];
    const handled: string[] = [];
    const broker = open({ onConnectionChange: (connected) => connectionChanges.push(connected) });
    const consumer = consumeText(
      {
        into: handled,
        onConsumingChange: (consuming) => consumingChanges.push(consuming),
      },
      broker,
    );
    const publisher = broker.publisher();
    await eventually(() => consumer.isConsuming());

    await cutProxy();
    await eventually(() => !broker.isConnected());
    const refused = await publisher
      .publish([{ routingKey: `${queue}.x`, content: Buffer.from('lost') }])
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).to.be.instanceOf(BrokerUnavailableError);
    await pause(300); // several reconnect attempts fail meanwhile
    await restoreProxy();

    await eventually(() => consumer.isConsuming());
    await publisher.publish([{ routingKey: `${queue}.x`, content: Buffer.from('through the broker') }]);
    await send('from outside');
    await eventually(() => handled.length === 2);
    expect(handled).to.have.members(['through the broker', 'from outside']);
    expect(connectionChanges).to.deep.equal([true, false, true]);
    expect(consumingChanges).to.deep.equal([true, false, true]);
    const warnings = lines.filter((line) => line.level === 'warn').map((line) => line.msg);
    expect(warnings).to.deep.equal(['test: broker connection lost; reconnecting']);
    expect(lines.some((line) => line.msg === 'test: connected to the broker again')).to.equal(true);
  });

  it('rides out a connection closed by the broker itself: the error is logged, never thrown', async () => {
    const { open, send, lines, consumeText } = setUp();
    const handled: string[] = [];
    const consumer = consumeText({ into: handled }, open({ url: vhost.url }));
    await eventually(() => consumer.isConsuming());
    // Closes the connections of this test's vhost only (the inspector's too; it is reopened).
    await promisify(execFile)('rabbitmqctl', [
      'close_all_connections',
      '-p',
      new URL(vhost.url).pathname.slice(1),
      'test: forced close',
    ]);
    const lost = await eventually(() =>
      lines.find((line) => line.msg === 'test: broker connection lost; reconnecting'),
    );
    expect(JSON.stringify(lost.err)).to.include('CONNECTION_FORCED');
    await openInspector();
    await eventually(() => consumer.isConsuming());
    await send('after the forced close');
    await eventually(() => handled.length === 1);
  });

  it('reopens a publisher channel the broker closed (missing exchange) on the same connection', async () => {
    const { queue, open, send, lines, consumeText } = setUp();
    const handled: string[] = [];
    const broker = open();
    const consumer = consumeText({ into: handled }, broker);
    await eventually(() => consumer.isConsuming());
    const publisher = broker.publisher();
    const refused = await publisher
      .publish([{ exchange: 'no.such.exchange', routingKey: 'x', content: Buffer.from('nowhere') }])
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).to.be.instanceOf(Error);
    expect(lines.some((line) => line.msg === 'test: broker channel error')).to.equal(true);

    await publisher.publish([{ routingKey: `${queue}.x`, content: Buffer.from('on a new channel') }]);
    await send('from outside');
    await eventually(() => handled.length === 2);
    expect(consumer.isConsuming()).to.equal(true); // the consumer's channel was never affected
    // One connection throughout: only the channel was replaced.
    expect(lines.filter((line) => line.msg.startsWith('test: connected to the broker'))).to.have.length(2); // this broker and send()'s
    expect(lines.some((line) => line.msg.includes('connection lost'))).to.equal(false);
  });

  it('subscribes again when its queue is deleted under it (the topology declares it again)', async () => {
    const { queue, send, consumeText } = setUp();
    const consumingChanges: boolean[] = [];
    const handled: string[] = [];
    const consumer = consumeText({
      into: handled,
      onConsumingChange: (consuming) => consumingChanges.push(consuming),
    });
    await eventually(() => consumer.isConsuming());
    await inspect.deleteQueue(queue);
    await eventually(() => consumingChanges.length === 3);
    expect(consumingChanges).to.deep.equal([true, false, true]);
    await send('to the declared-again queue');
    await eventually(() => handled.length === 1);
  });

  it('private queues: every connection hears every matching event', async () => {
    const { open } = setUp({ topology: assertEventsExchange });
    const heard: Record<string, string[]> = { a: [], b: [] };
    const brokers = ['a', 'b'].map((replica) => {
      const broker = open();
      const consumer = broker.consume({
        queue: privateQueue('test.private.heard'),
        prefetch: 10,
        decode: (content) => content.toString(),
        handle: (body) => {
          heard[replica]!.push(body);
        },
      });
      return { broker, consumer };
    });
    await eventually(() => brokers.every(({ consumer }) => consumer.isConsuming()));
    const producer = open({ url: vhost.url });
    await producer.publisher().publish([
      { routingKey: 'test.private.heard', content: Buffer.from('for everyone') },
      { routingKey: 'test.private.ignored', content: Buffer.from('for nobody') },
    ]);
    await eventually(() => heard.a!.length === 1 && heard.b!.length === 1);
    await pause(100);
    expect(heard).to.deep.equal({ a: ['for everyone'], b: ['for everyone'] });
  });

  it('stop lets a handler in progress finish within the grace period, and takes nothing after', async () => {
    const { open, send, depth, consumeText } = setUp();
    const handled: string[] = [];
    const broker = open();
    const consumer = consumeText(
      {
        prefetch: 1,
        handle: async (body) => {
          await pause(300);
          handled.push(body);
        },
      },
      broker,
    );
    await eventually(() => consumer.isConsuming());
    await send('in progress', 'left in the queue');
    await pause(50);
    await broker.close(5_000);
    expect(handled).to.deep.equal(['in progress']);
    expect(consumer.isConsuming()).to.equal(false);
    expect(broker.isConnected()).to.equal(false);
    expect(await depth()).to.equal(1); // acked before the close; the other one waits for the next consumer
    await pause(300);
    expect(handled).to.deep.equal(['in progress']);
  });

  it('startConsumer: a consumer on a connection of its own, closed with it', async () => {
    const { queue, topology, send, lines } = setUp();
    const { logger } = recordingLogger();
    const connectionChanges: boolean[] = [];
    const handled: string[] = [];
    const consumer = startConsumer({
      url: vhost.url,
      logger,
      name: 'alone',
      topology,
      onConnectionChange: (connected) => connectionChanges.push(connected),
      queue,
      prefetch: 5,
      decode: (content) => content.toString(),
      handle: (body) => {
        handled.push(body);
      },
    });
    await eventually(() => consumer.isConsuming());
    await send('hello');
    await eventually(() => handled.length === 1);
    await consumer.stop(1_000);
    expect(consumer.isConsuming()).to.equal(false);
    expect(connectionChanges).to.deep.equal([true, false]);
    expect(lines.some((line) => line.level === 'error')).to.equal(false);
  });

  it('starts without a broker and connects as soon as there is one', async () => {
    const { open, send, lines, consumeText } = setUp();
    await cutProxy();
    const broker = open();
    const handled: string[] = [];
    const consumer = consumeText({ into: handled }, broker);
    await pause(300);
    expect(broker.isConnected()).to.equal(false);
    const refused = await broker
      .publisher()
      .ready()
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).to.be.instanceOf(BrokerUnavailableError);
    await restoreProxy();
    await eventually(() => consumer.isConsuming());
    await send('hello');
    await eventually(() => handled.length === 1);
    const warnings = lines.filter((line) => line.level === 'warn').map((line) => line.msg);
    expect(warnings).to.deep.equal(['test: cannot reach the broker; retrying in the background']);
  });
});
