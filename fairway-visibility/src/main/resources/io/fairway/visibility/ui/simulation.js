// The time control of a served simulation: shown only when GET /api/v1/simulation answers (a simulated run),
// hidden over a live scheduler (the API answers 404 there).
import { get, post } from './api.js';
import { duration } from './dom.js';

export class SimulationControl {
  /** @param {() => void} onChange called after a control changed the simulated time, to refresh the view */
  constructor(onChange) {
    this.onChange = onChange;
    this.bar = document.getElementById('simbar');
    this.time = document.getElementById('sim-time');
    this.end = document.getElementById('sim-end');
    this.progress = document.getElementById('sim-progress');
    this.toggle = document.getElementById('sim-toggle');
    this.step = document.getElementById('sim-step');
    this.speed = document.getElementById('sim-speed');
    this.stateText = document.getElementById('sim-state');
    this.available = null; // unknown until the first answer
    this.state = null;
  }

  start() {
    this.toggle.addEventListener('click', () => this.act(this.state && this.state.paused ? 'resume' : 'pause'));
    this.step.addEventListener('click', () => this.act('step'));
    this.speed.addEventListener('change', () => this.act('speed', { speed: this.speed.value }));
    this.poll();
  }

  async poll() {
    if (this.available === false) return;
    try {
      this.show(await get('/simulation'));
    } catch (error) {
      // 404: not a simulation. Anything else: keep the bar as it was and try again on the next refresh.
      if (error.status === 404) {
        this.available = false;
        this.bar.hidden = true;
      }
    }
  }

  async act(verb, params) {
    this.toggle.disabled = this.step.disabled = true;
    try {
      this.show(await post('/simulation/' + verb, params));
      this.onChange();
    } catch (error) {
      this.stateText.textContent = 'The time control failed: ' + error.message;
    } finally {
      this.toggle.disabled = false;
      this.step.disabled = !(this.state && this.state.paused) || this.finished();
    }
  }

  finished() {
    return this.state && this.state.finished;
  }

  show(state) {
    if (!state) return;
    this.available = true;
    this.state = state;
    this.bar.hidden = false;
    const now = state.timeSeconds;
    const end = state.endSeconds;
    this.time.textContent = duration(now);
    this.time.dataset.seconds = String(now);
    this.end.textContent = end === null || end === undefined ? '–' : duration(end);
    if (end) {
      this.progress.max = end;
      this.progress.value = Math.min(now, end);
    }
    this.toggle.textContent = state.paused ? 'Resume' : 'Pause';
    this.toggle.setAttribute('aria-pressed', state.paused ? 'true' : 'false');
    this.step.disabled = !state.paused || Boolean(state.finished);
    if (document.activeElement !== this.speed) {
      const value = String(state.speed);
      if (![...this.speed.options].some((o) => o.value === value)) {
        this.speed.append(new Option(value + '×', value));
      }
      this.speed.value = value;
    }
    this.stateText.textContent = state.finished ? 'finished' : (state.paused ? 'paused' : 'running');
  }
}
