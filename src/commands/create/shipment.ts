// Creating one shipment and keeping what a person or script needs afterwards: tracking references per parcel,
// label files written to the output dir, and — when an earlier attempt's outcome is unknown — finding out
// whether the shipment exists (and fetching its labels) instead of creating it twice.
import type { Api, ShipmentResponse } from '../../api/index.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import { labelExtension, LabelNamer, writeLabels, type LabelBatchWriter, type LabelFormat } from '../../labels/index.js';
import type { ShipmentBody } from '../../shipment-input/build.js';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The small JSON summary of a created shipment (kept in the resume journal; no label bytes). */
export interface Created {
  shipment_reference: string;
  id?: string;
  /** Of the shipment or its first parcel. */
  tracking_reference?: string;
  /** One per parcel, in parcel order. */
  tracking_references: string[];
  carrier?: string;
  service?: string;
  price?: string;
  /** Label files written, one per parcel, in parcel order. */
  labels: string[];
  /** Why labels could not be fetched for a shipment found to exist already. */
  label_error?: string;
}

/** How labels are kept. */
export interface LabelPolicy {
  dir: string;
  format: LabelFormat;
  /** false with --no-labels. */
  write: boolean;
  namer: LabelNamer;
  /**
   * Write label files in place, without temp file and rename (WriteLabelsOptions.inPlace): only for a
   * journaled bulk run, where a shipment is journaled `done` after its labels are written and settled (its
   * labels written again) on the next run otherwise.
   */
  inPlace?: boolean;
  /**
   * A bulk run's batch writer: the labels of a created shipment are written with the next batch (in place,
   * as `inPlace`), once its request has given back its slot (createShipment's `release`).
   */
  batch?: LabelBatchWriter;
}

const FORMATS: LabelFormat[] = ['ZPL', 'PDF', 'PNG'];

function contentOf(r: { zpl?: string | null; pdf?: string | null; png?: string | string[] | null }, f: LabelFormat): string[] {
  if (f === 'ZPL') return r.zpl ? [r.zpl] : [];
  if (f === 'PDF') return r.pdf ? [r.pdf] : [];
  const png = r.png;
  if (!png) return [];
  return (Array.isArray(png) ? png : [png]).filter((p) => p !== '');
}

/**
 * The labels in a create response, one per parcel, in the requested format — or, when that one is empty
 * (print_labels: the desktop application picks the format), in whichever format the service sent.
 */
export function labelsOf(res: ShipmentResponse[], requested: LabelFormat): { format: LabelFormat; contents: string[] } {
  // The usual answer (one element per parcel, each with the format asked for), without the general walk.
  if (res.length === 1) {
    const contents = contentOf(res[0], requested);
    if (contents.length) return { format: requested, contents };
  }
  for (const f of [requested, ...FORMATS.filter((x) => x !== requested)]) {
    const contents = res.flatMap((r) => contentOf(r, f));
    if (contents.length) return { format: f, contents };
  }
  return { format: requested, contents: [] };
}

/** The summary of a create response, with the label files written. */
export function summarize(ref: string, res: ShipmentResponse[], labels: string[]): Created {
  const first = res[0];
  const out: Created = {
    shipment_reference: first?.shipment_reference ?? ref,
    tracking_references: res.map((r) => r.tracking_reference).filter((t): t is string => Boolean(t)),
    labels,
  };
  if (first?.id) out.id = first.id;
  if (first?.tracking_reference) out.tracking_reference = first.tracking_reference;
  if (first?.carrier) out.carrier = first.carrier;
  if (first?.service_name) out.service = first.service_name;
  if (first?.price !== undefined && first.price !== null) out.price = String(first.price);
  return out;
}

/**
 * The shipment was created, but its label files could not be written (disk full, no permission, a directory
 * where a label file should go). Not a ShipError: the bulk runner treats it as an outcome to settle, so the
 * next run of the same command finds the shipment and writes its labels instead of creating it again.
 */
export class LabelsNotWritten extends Error {
  /** The API's answer, when the shipment was created by this command (one element per parcel). */
  response?: ShipmentResponse[];
  constructor(
    readonly created: Created,
    cause: unknown,
  ) {
    const tracking = created.tracking_references.join(' ');
    super(
      `shipment ${created.shipment_reference} was created${tracking ? ` (${tracking})` : ''}, but its label could not be written: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'LabelsNotWritten';
  }
}

/**
 * The labels of a successful create written (keepLabels, or with the policy's batch writer); a failure to
 * write becomes LabelsNotWritten, naming what was created.
 */
function keepLabelsOfCreated(ref: string, res: ShipmentResponse[], policy: LabelPolicy): Promise<Created> {
  // Not an async function: a paused one keeps its parameters, and `res` holds the labels' text, which would
  // then live (and be promoted) until the files are written, on a thread of their own when the disk is slow.
  const created = summarize(ref, res, []);
  return keepLabels(ref, res, policy).then(
    (paths) => {
      created.labels = paths;
      return created;
    },
    (e: unknown) => {
      throw new LabelsNotWritten(created, e);
    },
  );
}

/**
 * Writes a response's labels (if any, and if wanted); resolves to the file paths. Plain synchronous writes
 * (temp file + rename, so no reader sees half a label, or in place with `inPlace`), measured cheaper in CPU
 * than the thread pool for small files, and CPU is what a bulk run competes for; or the policy's batch writer's.
 */
async function keepLabels(ref: string, res: ShipmentResponse[], policy: LabelPolicy): Promise<string[]> {
  if (!policy.write) return [];
  const { format, contents } = labelsOf(res, policy.format);
  if (contents.length === 0) return [];
  const where = { dir: policy.dir, shipmentRef: ref, format, namer: policy.namer };
  return policy.batch ? policy.batch.write(contents, where) : writeLabels(contents, { ...where, inPlace: policy.inPlace });
}

/**
 * POST /shipments, then the label files. A failure after the POST leaves the outcome for settle() to find.
 * `prevalidated`: the body is validateShipmentRequest's output (see Api.shipments.create). `release`: called
 * once the answer is in, before the labels are written (the bulk runner's slot: see BulkHooks.execute).
 * `callerRetries`: a bulk run's runner retries a 429 itself (CallOptions.callerRetries).
 */
export async function createShipment(
  api: Api,
  body: ShipmentBody,
  policy: LabelPolicy,
  signal?: AbortSignal,
  opts: { prevalidated?: boolean; release?: () => void; callerRetries?: boolean } = {},
): Promise<{ created: Created; response: ShipmentResponse[] }> {
  const ref = String(body.shipment_reference);
  const response = await api.shipments.create(body as Parameters<Api['shipments']['create']>[0], { signal, prevalidated: opts.prevalidated, callerRetries: opts.callerRetries });
  opts.release?.();
  try {
    return { created: await keepLabelsOfCreated(ref, response, policy), response };
  } catch (e) {
    // The shipment exists: its answer goes with the error, so it can still be shown whole.
    if (e instanceof LabelsNotWritten) e.response = response;
    throw e;
  }
}

/**
 * POST /shipments with a body held as JSON text that validateShipmentRequest produced (a bulk run's validated
 * bodies): sent byte for byte, then the label files, as createShipment does.
 */
export async function createShipmentFromJson(
  api: Api,
  ref: string,
  json: string,
  policy: LabelPolicy,
  signal?: AbortSignal,
  release?: () => void,
): Promise<Created> {
  // (Only bulk runs send these: their runner retries a 429 itself.)
  const response = await api.shipments.createPrevalidated(json, { signal, callerRetries: true });
  release?.();
  return keepLabelsOfCreated(ref, response, policy);
}

/** The API's way of saying a shipment with this reference exists already. */
export function isDuplicateReference(err: unknown): boolean {
  if (!(err instanceof ValidationError)) return false;
  const msgs = [...(err.fields.shipment_reference ?? []), ...(Object.keys(err.fields).length ? [] : [err.message])];
  return msgs.some((m) => /already (been )?taken|already exists/i.test(m));
}

/** A shipment's tracking events (GET /shipments/:ref/events), or undefined when it has none (404). */
async function eventsOrAbsent(api: Api, ref: string, signal?: AbortSignal): Promise<Awaited<ReturnType<Api['shipments']['events']>> | undefined> {
  try {
    return await api.shipments.events(ref, { signal });
  } catch (e) {
    if (e instanceof NotFoundError) return undefined;
    throw e;
  }
}

/**
 * Whether the service has a shipment with this reference. It may be a cancelled one whose reference was given
 * again: the events do not say.
 */
export async function shipmentExists(api: Api, ref: string, signal?: AbortSignal): Promise<boolean> {
  return (await eventsOrAbsent(api, ref, signal)) !== undefined;
}

/**
 * Whether a shipment exists (GET /shipments/:ref/events; 404 means it was never created). When it does, its
 * parcels' labels are fetched and written, so a run killed between the POST and the label files still ends
 * with every label on disk. A label that cannot be fetched does not make the shipment "absent".
 */
export async function findShipment(
  api: Api,
  ref: string,
  policy: LabelPolicy,
  signal?: AbortSignal,
): Promise<{ status: 'absent' } | { status: 'done'; result: Created }> {
  const events = await eventsOrAbsent(api, ref, signal);
  if (events === undefined) return { status: 'absent' };
  const tracking = Object.keys(events);
  const result: Created = { shipment_reference: ref, tracking_references: tracking, labels: [] };
  if (tracking[0]) result.tracking_reference = tracking[0];
  if (policy.write && tracking.length) {
    try {
      result.labels = await fetchLabels(api, ref, tracking, policy, signal);
    } catch (e) {
      result.label_error = `labels not fetched: ${(e as Error).message}`;
      // An earlier attempt killed while writing a label in place may have left it torn, and it is not
      // rewritten now: remove what may be half a label rather than leave it beside the whole ones.
      if (policy.inPlace) removeLabelFiles(ref, tracking.length, policy);
    }
  }
  return { status: 'done', result };
}

/** Fetches the labels of a shipment's parcels (GET /parcels/:ref/label) in the policy's format and writes them. */
async function fetchLabels(api: Api, ref: string, tracking: readonly string[], policy: LabelPolicy, signal?: AbortSignal, opts: { atomic?: boolean } = {}): Promise<string[]> {
  const contents: string[] = [];
  let format = policy.format;
  for (const t of tracking) {
    const labels = await api.parcels.label(t, { format: policy.format }, { signal });
    const got = labelsOf(labels as unknown as ShipmentResponse[], policy.format);
    format = got.format;
    contents.push(...got.contents);
  }
  return contents.length ? writeLabels(contents, { dir: policy.dir, shipmentRef: ref, format, namer: policy.namer, inPlace: opts.atomic ? false : policy.inPlace }) : [];
}

/**
 * A shipment an earlier run created, for a rerun that wants its labels: undefined when its label files are
 * there in the format asked for; otherwise its labels fetched again in that format (the earlier run used
 * another --format or --no-labels, or the files were removed since). Throws LabelsNotWritten (carrying the
 * shipment) when they cannot be fetched or written.
 */
export async function refreshLabels(api: Api, ref: string, stored: Created, policy: LabelPolicy, signal?: AbortSignal): Promise<Created | undefined> {
  if (!policy.write || !stored.tracking_references?.length) return undefined;
  const ext = `.${labelExtension(policy.format)}`;
  if (stored.labels?.length && stored.labels.every((p) => p.toLowerCase().endsWith(ext) && existsSync(p))) return undefined;
  const rest: Created = { ...stored };
  delete rest.label_error;
  try {
    // Written whole or not at all (temp file, rename): the journal already says done, so a later run trusts
    // any file it finds, and a process killed mid-write would leave it torn for good.
    return { ...rest, labels: await fetchLabels(api, ref, stored.tracking_references, policy, signal, { atomic: true }) };
  } catch (e) {
    // Fails the shipment in this run (its labels are what the run was asked for); the journal keeps it created.
    throw new LabelsNotWritten({ ...rest, labels: [] }, e);
  }
}

/** Removes the label files a shipment's parcels would have (any format); missing ones are fine. */
function removeLabelFiles(ref: string, parcels: number, policy: LabelPolicy): void {
  for (let n = 1; n <= parcels; n++) {
    for (const f of FORMATS) {
      try {
        rmSync(join(policy.dir, policy.namer.name(ref, n, f)), { force: true });
      } catch {
        // best effort: the shipment is reported without labels either way
      }
    }
  }
}
