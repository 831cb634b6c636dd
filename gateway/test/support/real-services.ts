/**
 * The real services a gateway suite runs against (fresh databases): the lookup service, seeded
 * through its admin client (see lookup-seed.ts) before anything else starts, the other services the
 * suite names, started in the order named, and a test gateway (test-gateway.ts) in front of them
 * all. stop() closes the gateway, stops the services in the reverse order, then the admin client
 * and the lookup. A suite takes it as kit's suiteFixture (docs/decisions.md, "Shared test steps"):
 *
 *   const fleet = suiteFixture(() =>
 *     startRealServices({
 *       label: 'gateway_comments',
 *       seed: async (admin) => { await createAlphaAndBeta(admin); },
 *       peers: { tickets: ({ lookup }) => startTestTicketServer({ lookupAddress: lookup }) },
 *     }),
 *   );
 *   ... fleet.gateway.apiUrl, fleet.tickets, fleet.admin
 */
import { createServiceClient, type ServiceClient } from '@tix/kit';
import type { ServiceName } from '@tix/protos';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './test-gateway.js';

type PeerName = Exclude<ServiceName, 'lookup'>;

/** The addresses of the services started so far: the lookup's, and each peer's once it started. */
export type StartedAddresses = { lookup: string } & Partial<Record<PeerName, string>>;

/** A started service: where it listens, and how it stops. */
interface RunningService {
  address: string;
  stop(): Promise<unknown>;
}

/** How each peer starts, given the addresses of the services started before it. */
type PeerStarters = { [Name in PeerName]?: (started: StartedAddresses) => Promise<RunningService> };

export interface RealServicesOptions<Peers extends PeerStarters> {
  /** The lookup's database label. */
  label: string;
  /** Writes what the suite starts from into the lookup, before the peers start. */
  seed?: (admin: ServiceClient<'lookup'>) => Promise<void>;
  /** The other services, started in the order of their keys (each key the service's name). */
  peers?: Peers;
  /** The test gateway's options besides its services (every service started). */
  gateway?: Omit<TestGatewayOptions, 'services'>;
}

export type RealServices<Peers extends PeerStarters> = {
  [Name in keyof Peers]: Peers[Name] extends (started: StartedAddresses) => Promise<infer Service>
    ? Service
    : never;
} & {
  lookup: TestLookupServer;
  /** The lookup's admin client (open until stop()). */
  admin: ServiceClient<'lookup'>;
  gateway: TestGateway;
  /** Where each service listens (what the gateway is in front of). */
  addresses: StartedAddresses;
  stop(): Promise<void>;
};

/** Starts the suite's services and gateway (see the file header); what started is stopped if a step fails. */
export async function startRealServices<Peers extends PeerStarters>(
  options: RealServicesOptions<Peers>,
): Promise<RealServices<Peers>> {
  const stops: (() => unknown)[] = [];
  const stop = async () => {
    for (const each of stops.splice(0).reverse()) await each();
  };
  try {
    const lookup = await startTestLookupServer({ label: options.label });
    stops.push(() => lookup.stop());
    const admin = createServiceClient('lookup', lookup.address, { deadlineMs: 10_000 });
    stops.push(() => admin.close());
    await options.seed?.(admin);
    const started: StartedAddresses = { lookup: lookup.address };
    const peers: Partial<Record<PeerName, RunningService>> = {};
    for (const [name, start] of Object.entries(options.peers ?? {}) as [PeerName, PeerStarters[PeerName]][]) {
      const peer = await start!(started);
      stops.push(() => peer.stop());
      peers[name] = peer;
      started[name] = peer.address;
    }
    const gateway = await startTestGateway({ ...options.gateway, services: started });
    stops.push(() => gateway.close());
    return { ...peers, lookup, admin, gateway, addresses: started, stop } as RealServices<Peers>;
  } catch (error) {
    await stop();
    throw error;
  }
}
