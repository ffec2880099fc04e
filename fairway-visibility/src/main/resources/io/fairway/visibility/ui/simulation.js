// The time control of a served simulation: shown only when the API serves one (GET /api/v1 says mode "simulation"),
// hidden over a live scheduler. A run served at its final state (no --pace) shows the
// time only: its control paths answer 409.
import { get, post } from './api.js';
import { duration } from './dom.js';

export class SimulationControl {
  /** @param {() => void} onChange called after a control moved the simulated time, to refresh the view */
  constructor(onChange) {
    this.onChange = onChange;
    this.bar = document.getElementById('simbar');
    this.controls = document.getElementById('sim-controls');
    this.time = document.getElementById('sim-time');
    this.end = document.getElementById('sim-end');
    this.progress = document.getElementById('sim-progress');
    this.toggle = document.getElementById('sim-toggle');
    this.step = document.getElementById('sim-step');
    this.stepSize = document.getElementById('sim-step-size');
    this.speed = document.getElementById('sim-speed');
    this.stateText = document.getElementById('sim-state');
    this.available = null; // unknown until the first answer
    this.state = null;
  }

  async start() {
    this.toggle.addEventListener('click', () => this.act(this.state && this.state.paused ? 'resume' : 'pause'));
    this.step.addEventListener('click', () => this.act('step', { seconds: this.stepSize.value }));
    this.speed.addEventListener('change', () => this.act('speed', { value: this.speed.value }));
    try {
      // GET /api/v1 says what is served: only a simulation has a time control.
      const info = await get('');
      this.available = info.mode === 'simulation' ? null : false;
    } catch (error) {
      this.available = null; // ask /simulation itself
    }
    return this.poll();
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
      this.toggle.disabled = false;
      this.step.disabled = !(this.state && this.state.paused);
    }
  }

  show(state) {
    if (!state) return;
    this.available = true;
    this.state = state;
    this.bar.hidden = false;
    this.bar.dataset.paused = String(state.paused);
    this.bar.dataset.finished = String(state.finished);
    this.time.textContent = duration(state.timeMillis / 1000);
    this.time.dataset.millis = String(state.timeMillis);
    // endMillis is -1 while the run goes on: its end is not known before it happens.
    const ended = state.endMillis !== null && state.endMillis !== undefined && state.endMillis >= 0;
    this.end.textContent = ended ? 'of ' + duration(state.endMillis / 1000) : '';
    this.progress.hidden = !ended;
    if (ended) {
      this.progress.max = Math.max(1, state.endMillis);
      this.progress.value = Math.min(state.timeMillis, state.endMillis);
    }
    // A run shown only at its final state (no --pace), or one that is over, has nothing left to steer.
    this.controls.hidden = state.controllable === false || Boolean(state.finished);
    this.toggle.textContent = state.paused ? 'Resume' : 'Pause';
    this.toggle.disabled = false;
    this.step.disabled = !state.paused;
    if (document.activeElement !== this.speed) {
      // speed null: unpaced, as fast as the machine goes (a run held at --pause-at without --pace).
      const value = state.speed === null || state.speed === undefined ? 'max' : String(state.speed);
      if (![...this.speed.options].some((o) => o.value === value)) {
        const option = new Option(value === 'max' ? 'as fast as possible' : value + '×', value);
        option.disabled = value === 'max';
        this.speed.append(option);
      }
      this.speed.value = value;
    }
    this.stateText.textContent = state.finished ? 'finished'
      : (state.paused ? 'paused at ' + duration(state.timeMillis / 1000) : 'running');
  }
}
