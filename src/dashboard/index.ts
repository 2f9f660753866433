// The dashboard's page kit: what its pages (src/routes/dashboard/, a folder per screen, one file
// per page operation) are built from. Here: each screen's views and form helpers (./<screen>/: views,
// lists, detail pages, form values), the UI kit (./ui), the page frame (./frame: CSP, no-store,
// errors as pages), the page session and CSRF (./session), the cookies (./cookies), form reading
// and validation (./forms) and the screens' guards (./routers). No route is registered here; the
// dashboard's JSON routes are src/routes/dashboard-api. This index exports the frame, which
// src/app.ts puts before every /dashboard route.
export { dashboardPageFrame, pageFrame } from "./frame";
