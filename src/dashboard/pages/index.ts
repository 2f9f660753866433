// Old import paths (src/app.ts: "./dashboard/pages"; tests: ./session, ./forms), kept until they
// import src/dashboard (index.ts, session.ts, forms.ts); then this folder goes.
export { dashboardPageFrame, registerDashboardPages } from "../index";
