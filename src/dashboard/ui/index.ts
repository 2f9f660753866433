// The dashboard's UI kit: what every screen builds its views from.
export { Badge, type Tone, ToolOutcome } from "./badges";
export { DayChart } from "./day-chart";
export { EmptyState } from "./empty-state";
export { AgentVersionField, Checkbox, Csrf, ErrorSummary, type FieldErrors, GroupError, Select, TextArea, TextField } from "./fields";
export { Document, InlineScript, InlineStyle, Layout, nonceOf, type Shell, scriptJson, shellOf } from "./layout";
export { AdminRequired, Flash, Secret } from "./notices";
export { type Column, DataTable } from "./table";
export { clock, When, when } from "./time";
