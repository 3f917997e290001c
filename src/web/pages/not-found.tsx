import { Layout, type PageFrame } from "../layout.tsx";

/** A missing page, a refusal or a failure: its title and one sentence. */
export function NotFoundPage({ frame, message }: { frame: PageFrame; message: string }) {
  return (
    <Layout frame={frame}>
      <h1>{frame.title}</h1>
      <p>{message}</p>
    </Layout>
  );
}
