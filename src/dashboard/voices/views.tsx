/** @jsxImportSource hono/jsx */
// The Voices screens: the workspace's own voices (editable) and the system catalog (read-only),
// and the form that creates and edits an owned voice.
import type { FC } from "hono/jsx";
import { VOICE_GENDERS, VOICE_PROVIDERS, VOICE_SAMPLE_TEXT } from "../../voices/schema";
import type { Voice } from "../../voices/service";
import {
  type Column,
  Csrf,
  DataTable,
  EmptyState,
  ErrorSummary,
  type FieldErrors,
  Flash,
  Layout,
  Select,
  type Shell,
  TextArea,
  TextField,
} from "../ui";
import type { Values } from "./form";

/** A voice's sample, fetched (and metered) only when played; no source while no voice is named (a script sets it). */
export const VoiceSample: FC<{ id: string | null; name: string }> = ({ id, name }) => (
  // biome-ignore lint/a11y/useMediaCaption: a fixed sentence, said on the page (VOICE_SAMPLE_TEXT)
  <audio
    class="voice-sample"
    controls
    preload="none"
    src={id ? `/dashboard/voices/${id}/sample` : undefined}
    aria-label={`${name || "A voice"}: a sample`}
  />
);

const columns = (editable: boolean): Array<Column<Voice>> => [
  { header: "Name", cell: (v) => (editable ? <a href={`/dashboard/voices/${v.id}`}>{v.name}</a> : v.name) },
  { header: "Provider", cell: (v) => v.provider },
  { header: "Provider voice id", class: "mono", cell: (v) => v.providerVoiceId },
  { header: "Language", cell: (v) => v.language },
  { header: "Description", class: "small", cell: (v) => v.description },
  { header: "Listen", cell: (v) => <VoiceSample id={v.id} name={v.name} /> },
];

export const VoiceList: FC<{ shell: Shell; owned: Voice[]; system: Voice[]; notice?: string }> = ({ shell, owned, system, notice }) => (
  <Layout
    shell={shell}
    actions={
      <a class="button" href="/dashboard/voices/new">
        New voice
      </a>
    }
  >
    {notice ? <Flash>{notice}</Flash> : null}
    <p class="muted small mt0">
      Play a voice to hear it say “{VOICE_SAMPLE_TEXT}” (a few dozen characters of text to speech, metered like any).
    </p>
    <h2>This workspace's voices</h2>
    <DataTable rows={owned} columns={columns(true)} empty={<EmptyState muted>None yet: agents use system voices.</EmptyState>} />
    <h2>System voices</h2>
    <DataTable rows={system} columns={columns(false)} />
  </Layout>
);

export interface VoiceFormProps {
  shell: Shell;
  voice: Voice | null;
  values: Values;
  errors: FieldErrors;
  notice?: string;
}

export const VoiceForm: FC<VoiceFormProps> = ({ shell, voice, values, errors, notice }) => (
  <Layout shell={shell}>
    {notice ? <Flash>{notice}</Flash> : null}
    <ErrorSummary errors={errors} />
    <form method="post" action={voice ? `/dashboard/voices/${voice.id}` : "/dashboard/voices"} class="card" novalidate>
      <Csrf token={shell.csrf} />
      <div class="grid2">
        <TextField name="name" label="Name" value={values.name} errors={errors} required />
        <Select
          name="provider"
          label="Provider"
          value={values.provider}
          options={VOICE_PROVIDERS.map((p) => ({ value: p, label: p }))}
          errors={errors}
        />
        <TextField name="providerVoiceId" label="Provider voice id" value={values.providerVoiceId} errors={errors} required />
        <TextField name="language" label="Language" value={values.language} errors={errors} hint="BCP 47, e.g. en-US" />
        <Select
          name="gender"
          label="Gender"
          value={values.gender}
          options={[{ value: "", label: "Not set" }, ...VOICE_GENDERS.map((g) => ({ value: g, label: g }))]}
          errors={errors}
        />
        <TextField name="previewUrl" label="Preview URL" type="url" value={values.previewUrl} errors={errors} />
      </div>
      <TextArea name="description" label="Description" value={values.description} errors={errors} rows={2} />
      <p class="row">
        <button type="submit">{voice ? "Save voice" : "Create voice"}</button>
        <a class="button secondary" href="/dashboard/voices">
          Cancel
        </a>
      </p>
    </form>
    {voice ? (
      <form method="post" action={`/dashboard/voices/${voice.id}/delete`} data-confirm={`Delete the voice "${voice.name}"?`} class="card">
        <Csrf token={shell.csrf} />
        <button type="submit" class="danger">
          Delete voice
        </button>
      </form>
    ) : null}
  </Layout>
);
