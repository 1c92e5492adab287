/** The caller's page: its own header and text, the `<nature-assessment>` component, and a few lines of script. */

export interface PageData {
  apiUrl: string;
  publishableKey: string;
  subjectId: string;
  assessmentId: string;
  clientSecret: string;
  /**
   * False once the assessment is answered (scoring or completed): the component then shows its ending only, and
   * the page drops what only makes sense while answering (the instructions, "No answer yet").
   */
  open: boolean;
  /** The component's `language` attribute, where the page sets one (without it, the component speaks the assessment's language). */
  language?: string;
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderPage(data: PageData): string {
  const instructions = data.open
    ? `<p>Answer each statement with how much it is like you. Your answers are saved as you go: you can close
      this page and come back later.</p>`
    : '';
  const language = data.language === undefined ? '' : ` language="${escapeHtml(data.language)}"`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Your nature profile · Example Careers</title>
  <script type="module" src="${escapeHtml(data.apiUrl)}/v1/embed/nature-assessment.js"></script>
  <style>
    body { margin: 0; font-family: system-ui, sans-serif; color: #1d2a24; background: #f6f7f4; }
    header { background: #2f5d46; color: #fff; padding: 12px 16px; }
    header strong { font-size: 1.1rem; }
    /* Room for the five answers of a statement side by side, each label on one line. */
    main { max-width: 880px; margin: 0 auto; padding: 16px; }
    nature-assessment { display: block; --nature-accent: #2f5d46; --nature-radius: 8px; }
    #page-events { margin-top: 24px; padding: 12px 16px; border: 1px solid #c9d3cc; border-radius: 8px; background: #fff; }
    #page-events h2 { font-size: 1rem; margin: 0 0 8px; }
    #page-events p, #page-events li { margin: 4px 0; overflow-wrap: anywhere; }
  </style>
</head>
<body>
  <header><strong>Example Careers</strong></header>
  <main>
    <h1>Your nature profile</h1>
    ${instructions}
    <nature-assessment
      publishable-key="${escapeHtml(data.publishableKey)}"
      subject-id="${escapeHtml(data.subjectId)}"
      assessment-id="${escapeHtml(data.assessmentId)}"
      client-secret="${escapeHtml(data.clientSecret)}"${language}
    ></nature-assessment>
    <section id="page-events" aria-labelledby="page-events-title">
      <h2 id="page-events-title">What this page heard</h2>
      <p id="progress-line" role="status">${data.open ? 'No answer yet.' : ''}</p>
      <ol id="event-lines"></ol>
      <p id="profile-line" role="status"></p>
    </section>
  </main>
  <script type="module">
    // The component's DOM events, as a page would use them (and kept in window.natureEvents for the tests).
    const events = (window.natureEvents = []);
    const line = (text) => {
      const li = document.createElement('li');
      li.textContent = text;
      document.getElementById('event-lines').append(li);
    };
    document.addEventListener('nature:progress', (event) => {
      events.push({ type: event.type, detail: event.detail });
      const { answered, saved, total } = event.detail;
      document.getElementById('progress-line').textContent = 'Answered ' + answered + ' of ' + total + ', ' + saved + ' saved.';
    });
    document.addEventListener('nature:submitted', (event) => {
      events.push({ type: event.type, detail: event.detail });
      line('Submitted (' + event.detail.status + ').');
      pollProfile();
    });
    document.addEventListener('nature:error', (event) => {
      events.push({ type: event.type, detail: event.detail });
      line('Error ' + event.detail.code + (event.detail.retrying ? ' (retrying)' : '') + ': ' + event.detail.detail);
    });

    // Our own server learns of the profile by the signed webhook; the page asks it.
    let polling = false;
    async function pollProfile() {
      if (polling) return;
      polling = true;
      const shown = document.getElementById('profile-line');
      shown.textContent = 'Waiting for your profile…';
      for (;;) {
        const status = await fetch('/status').then((r) => r.json(), () => null);
        // Words for the person: no ids, and no ordering of their scores (the profile does not rank).
        if (status && status.profile) {
          shown.textContent = 'Your profile is ready: Example Careers has received it.';
          return;
        }
        if (status && status.profile_error) {
          shown.textContent = 'Your profile could not be fetched just now; Example Careers will try again.';
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    ${data.open ? '' : 'pollProfile(); // answered on an earlier visit: the profile may be ready already'}
  </script>
</body>
</html>
`;
}
