// The microphone, push-to-talk: getUserMedia + WebAudio, the samples kept as PCM,
// resampled to 16 kHz (OfflineAudioContext) and written as a 16-bit mono WAV here (no MediaRecorder, no webm, no ffmpeg).
// A take ends when the person clicks again, or after `silenceEnd` seconds of silence
// once speech was heard, or after `maxSeconds`.

export const TARGET_RATE = 16000;

// Resample to 16 kHz with the browser's own resampler (an OfflineAudioContext: band-
// limited, unlike averaging), falling back to averaging where it is missing.
export async function resample16k(samples, rate, target = TARGET_RATE) {
  if (rate === target || !samples.length) return samples;
  const Offline = window.OfflineAudioContext || window.webkitOfflineAudioContext;
  if (!Offline) return downsample(samples, rate, target);
  const frames = Math.max(1, Math.ceil(samples.length * target / rate));
  const off = new Offline(1, frames, target);
  const buf = off.createBuffer(1, samples.length, rate);
  buf.copyToChannel(samples, 0);
  const src = off.createBufferSource();
  src.buffer = buf;
  src.connect(off.destination);
  src.start();
  return (await off.startRendering()).getChannelData(0);
}

// Average down to 16 kHz (a box filter over each output sample's span).
export function downsample(samples, rate, target = TARGET_RATE) {
  if (rate === target) return samples;
  const ratio = rate / target;
  const out = new Float32Array(Math.floor(samples.length / ratio));
  for (let i = 0; i < out.length; i++) {
    const a = Math.floor(i * ratio), b = Math.min(samples.length, Math.floor((i + 1) * ratio));
    let sum = 0;
    for (let j = a; j < b; j++) sum += samples[j];
    out[i] = b > a ? sum / (b - a) : 0;
  }
  return out;
}

export function wavBytes(samples, rate = TARGET_RATE) {
  const buf = new ArrayBuffer(44 + samples.length * 2);
  const v = new DataView(buf);
  const text = (o, s) => { for (let i = 0; i < s.length; i++) v.setUint8(o + i, s.charCodeAt(i)); };
  text(0, "RIFF"); v.setUint32(4, 36 + samples.length * 2, true); text(8, "WAVE");
  text(12, "fmt "); v.setUint32(16, 16, true); v.setUint16(20, 1, true); v.setUint16(22, 1, true);
  v.setUint32(24, rate, true); v.setUint32(28, rate * 2, true); v.setUint16(32, 2, true); v.setUint16(34, 16, true);
  text(36, "data"); v.setUint32(40, samples.length * 2, true);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    v.setInt16(44 + i * 2, s < 0 ? s * 0x8000 : s * 0x7fff, true);
  }
  return new Blob([buf], { type: "audio/wav" });
}

// Record one take. Returns {stop(), done: Promise<{wav: Blob, seconds, rate}>}.
export async function recordTake({ onLevel = () => {}, silenceEnd = 0.9, maxSeconds = 20, threshold = 0.015 } = {}) {
  // the audio graph first, so that little of the take's start is lost once the mic opens
  const ctx = new AudioContext();
  await ctx.resume();
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
    });
  } catch (e) {
    ctx.close();
    throw e;
  }
  const source = ctx.createMediaStreamSource(stream);
  const proc = ctx.createScriptProcessor(4096, 1, 1);
  const mute = ctx.createGain();
  mute.gain.value = 0;
  const chunks = [];
  let total = 0, heardSpeech = false, quietFor = 0, finished = false;
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  async function stop() {
    if (finished) return;
    finished = true;
    proc.disconnect(); source.disconnect();
    for (const t of stream.getTracks()) t.stop();
    const all = new Float32Array(total);
    let o = 0;
    for (const c of chunks) { all.set(c, o); o += c.length; }
    const rate = ctx.sampleRate;
    ctx.close();
    onLevel(0);
    const pcm = await resample16k(all, rate);
    finish({ wav: wavBytes(pcm), seconds: pcm.length / TARGET_RATE, rate, heardSpeech });
  }
  proc.onaudioprocess = (ev) => {
    if (finished) return;
    const x = ev.inputBuffer.getChannelData(0);
    chunks.push(new Float32Array(x));
    total += x.length;
    let sq = 0;
    for (let i = 0; i < x.length; i++) sq += x[i] * x[i];
    const rms = Math.sqrt(sq / x.length);
    onLevel(Math.min(1, rms * 6));
    const dt = x.length / ctx.sampleRate;
    if (rms > threshold) { heardSpeech = true; quietFor = 0; } else quietFor += dt;
    if ((heardSpeech && quietFor >= silenceEnd) || total / ctx.sampleRate >= maxSeconds) stop();
  };
  source.connect(proc);
  proc.connect(mute);
  mute.connect(ctx.destination);
  return { stop, done };
}
