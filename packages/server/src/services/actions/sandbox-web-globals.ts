/**
 * The web globals of the sandbox, as commonly used by the platform's example actions (which run on Node): `URL`,
 * `URLSearchParams`, `TextEncoder`, `TextDecoder`, `atob`, `btoa`, `setTimeout` / `clearTimeout`, `crypto`
 * (`randomUUID`, `getRandomValues`) and a `Buffer` subset (`Buffer.from` of strings in utf8, hex, base64, base64url,
 * latin1 and ascii, of arrays and byte views; `toString` in those encodings; `byteLength`, `alloc`, `concat`,
 * `isBuffer`, `equals`, `toJSON`). Part of the prelude (sandbox-prelude.ts), in its scope: it uses the host
 * callbacks `hostUrl`, `hostRandom` and `hostTimer` and the intrinsics the prelude captured.
 *
 * Written here rather than bundled from npm: the packages that provide these (`buffer`, `whatwg-url` with `tr46`
 * and `punycode`, `text-encoding`) weigh 60-400 KB each and would be compiled into every isolate, where this subset
 * is a few KB. Parsing a URL is the one hard part: `URL` asks the host, which parses with Node's own URL and answers
 * with the components as strings (nothing of the host's is handed in), so hosts, ports, IDNA and percent-encoding
 * follow the WHATWG standard exactly as Node does. Everything else is plain code over the isolate's own objects.
 *
 * Timers belong to their execution: the host schedules them under the execution's scope (sandbox-context.ts), fires
 * them into the context while the execution runs, and drops them all when it ends; the prelude forgets the
 * callbacks of an ended execution too, and bounds the timers one execution may create (`settings.maxTimers`). An
 * uncaught error in a timer's callback fails the execution, as an uncaught exception ends a Node process.
 *
 * The host callbacks are synchronous and run on the host's main thread: a tenant spinning on `new URL()` would keep
 * it half busy for its whole time limit (measured: an event-loop utilization of 0.5-0.9 at 10-20 thousand calls a
 * second). So an execution has a budget of host calls (`settings.maxHostCalls`, URL, randomness and token HMACs
 * together; past it they throw a RangeError), and small random requests are served from a pool.
 */
export const WEB_GLOBALS_PRELUDE = String.raw`
// ---- calls to the host: each runs on the host's main thread, so an execution has a budget of them ----
let hostCallsLeft = settings.maxHostCalls;
function callHost(callback, first, second, third) {
  if (hostCallsLeft <= 0) {
    throw new RangeError('Too many calls of URL, crypto and api.redirect in one execution (the limit is ' + settings.maxHostCalls + ')');
  }
  hostCallsLeft -= 1;
  return callback(first, second, third);
}

// ---- bytes: UTF-8 and base64, shared by the globals below and by the api's tokens ----
const Uint8ArrayClass = Uint8Array;
const ArrayBufferClass = ArrayBuffer;
const isView = ArrayBuffer.isView;
const fromCharCode = String.fromCharCode;
const RangeErrorClass = RangeError;

function utf8Encode(text) {
  const string = String(text);
  const bytes = new Uint8ArrayClass(string.length * 3);
  let length = 0;
  for (let i = 0; i < string.length; i += 1) {
    let code = string.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < string.length) {
      const next = string.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i += 1;
      } else code = 0xfffd;
    } else if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) bytes[length++] = code;
    else if (code < 0x800) {
      bytes[length++] = 0xc0 | (code >> 6);
      bytes[length++] = 0x80 | (code & 0x3f);
    } else if (code < 0x10000) {
      bytes[length++] = 0xe0 | (code >> 12);
      bytes[length++] = 0x80 | ((code >> 6) & 0x3f);
      bytes[length++] = 0x80 | (code & 0x3f);
    } else {
      bytes[length++] = 0xf0 | (code >> 18);
      bytes[length++] = 0x80 | ((code >> 12) & 0x3f);
      bytes[length++] = 0x80 | ((code >> 6) & 0x3f);
      bytes[length++] = 0x80 | (code & 0x3f);
    }
  }
  return bytes.slice(0, length);
}

// Decodes as the WHATWG Encoding standard does: each maximal invalid subpart becomes one U+FFFD (or throws, fatal).
function utf8Decode(bytes, fatal) {
  let out = '';
  let chunk = [];
  const flush = () => {
    out += fromCharCode.apply(null, chunk);
    chunk = [];
  };
  const invalid = () => {
    if (fatal) throw new TypeErrorClass('The encoded data was not valid utf-8');
    chunk.push(0xfffd);
  };
  for (let i = 0; i < bytes.length; ) {
    const first = bytes[i];
    let needed = 0;
    let code = 0;
    let lower = 0x80;
    let upper = 0xbf;
    if (first < 0x80) {
      chunk.push(first);
      i += 1;
    } else {
      if (first >= 0xc2 && first <= 0xdf) { needed = 1; code = first & 0x1f; }
      else if (first >= 0xe0 && first <= 0xef) {
        needed = 2; code = first & 0xf;
        if (first === 0xe0) lower = 0xa0;
        if (first === 0xed) upper = 0x9f;
      } else if (first >= 0xf0 && first <= 0xf4) {
        needed = 3; code = first & 0x7;
        if (first === 0xf0) lower = 0x90;
        if (first === 0xf4) upper = 0x8f;
      }
      i += 1;
      if (needed === 0) invalid();
      else {
        let seen = 0;
        while (seen < needed) {
          const next = bytes[i];
          if (next === undefined || next < lower || next > upper) break;
          lower = 0x80;
          upper = 0xbf;
          code = (code << 6) | (next & 0x3f);
          seen += 1;
          i += 1;
        }
        if (seen < needed) invalid();
        else if (code >= 0x10000) {
          code -= 0x10000;
          chunk.push(0xd800 + (code >> 10), 0xdc00 + (code & 0x3ff));
        } else chunk.push(code);
      }
    }
    if (chunk.length > 8000) flush();
  }
  flush();
  return out;
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = new Uint8ArrayClass(128).fill(255);
for (let i = 0; i < 64; i += 1) BASE64_VALUES[BASE64_ALPHABET.charCodeAt(i)] = i;
BASE64_VALUES[45] = 62; // '-' of base64url
BASE64_VALUES[95] = 63; // '_' of base64url

function base64Encode(bytes, url) {
  const alphabet = url ? BASE64_ALPHABET.slice(0, 62) + '-_' : BASE64_ALPHABET;
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += alphabet[n >> 18] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63] + alphabet[n & 63];
  }
  if (i < bytes.length) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += alphabet[n >> 18] + alphabet[(n >> 12) & 63];
    if (i + 1 < bytes.length) out += alphabet[(n >> 6) & 63];
    if (!url) out += i + 1 < bytes.length ? '=' : '==';
  }
  return out;
}

// Lenient, as Node's Buffer is: both alphabets, padding optional, other characters skipped, stops at '='.
function base64Decode(text) {
  const string = String(text);
  const bytes = new Uint8ArrayClass(Math.ceil(string.length * 3 / 4));
  let length = 0;
  let bits = 0;
  let count = 0;
  for (let i = 0; i < string.length; i += 1) {
    const code = string.charCodeAt(i);
    if (code === 61) break;
    const value = code < 128 ? BASE64_VALUES[code] : 255;
    if (value === 255) continue;
    bits = (bits << 6) | value;
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes[length++] = (bits >> count) & 0xff;
    }
  }
  return bytes.slice(0, length);
}

function toBytes(source, what) {
  if (source instanceof ArrayBufferClass) return new Uint8ArrayClass(source);
  if (isView(source)) return new Uint8ArrayClass(source.buffer, source.byteOffset, source.byteLength);
  throw new TypeErrorClass(what + ' must be an ArrayBuffer or an ArrayBufferView');
}

// ---- TextEncoder / TextDecoder (UTF-8, as the standard's TextEncoder; TextDecoder without streaming) ----
class TextEncoder {
  get encoding() { return 'utf-8'; }
  encode(input) { return utf8Encode(input === undefined ? '' : input); }
  encodeInto(source, destination) {
    const string = String(source);
    let read = 0;
    let written = 0;
    for (const character of string) {
      const bytes = utf8Encode(character);
      if (written + bytes.length > destination.length) break;
      destination.set(bytes, written);
      written += bytes.length;
      read += character.length;
    }
    return { read, written };
  }
}

class TextDecoder {
  #fatal;
  #ignoreBOM;
  constructor(label, options) {
    const name = label === undefined ? 'utf-8' : String(label).trim().toLowerCase();
    if (name !== 'utf-8' && name !== 'utf8' && name !== 'unicode-1-1-utf-8') {
      throw new RangeErrorClass('TextDecoder: the encoding "' + name + '" is not supported (only utf-8 is)');
    }
    this.#fatal = Boolean(options && options.fatal);
    this.#ignoreBOM = Boolean(options && options.ignoreBOM);
  }
  get encoding() { return 'utf-8'; }
  get fatal() { return this.#fatal; }
  get ignoreBOM() { return this.#ignoreBOM; }
  decode(input) {
    if (input === undefined) return '';
    let bytes = toBytes(input, 'TextDecoder.decode: the input');
    if (!this.#ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    return utf8Decode(bytes, this.#fatal);
  }
}
globalThis.TextEncoder = TextEncoder;
globalThis.TextDecoder = TextDecoder;

// ---- atob / btoa (strict, as the HTML standard: latin1 text, the standard alphabet) ----
function invalidCharacter(message) {
  const error = new ErrorClass(message);
  error.name = 'InvalidCharacterError';
  return error;
}
globalThis.btoa = function btoa(data) {
  if (arguments.length === 0) throw new TypeErrorClass('btoa: 1 argument required');
  const string = String(data);
  const bytes = new Uint8ArrayClass(string.length);
  for (let i = 0; i < string.length; i += 1) {
    const code = string.charCodeAt(i);
    if (code > 0xff) throw invalidCharacter('btoa: the string contains characters outside of the Latin1 range');
    bytes[i] = code;
  }
  return base64Encode(bytes, false);
};
globalThis.atob = function atob(data) {
  if (arguments.length === 0) throw new TypeErrorClass('atob: 1 argument required');
  let string = String(data).replace(/[\t\n\f\r ]/g, '');
  if (string.length % 4 === 0) string = string.replace(/==?$/, '');
  if (string.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(string)) throw invalidCharacter('atob: the string is not correctly encoded');
  const bytes = base64Decode(string);
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) out += fromCharCode(bytes[i]);
  return out;
};

// ---- Buffer: the subset the platform's examples use, over the isolate's own Uint8Array ----
const BUFFER_ENCODINGS = ['utf8', 'utf-8', 'hex', 'base64', 'base64url', 'latin1', 'binary', 'ascii'];
function bufferEncoding(encoding) {
  const name = encoding === undefined || encoding === null ? 'utf8' : String(encoding).toLowerCase();
  if (!BUFFER_ENCODINGS.includes(name)) throw new TypeErrorClass('Unknown encoding: ' + String(encoding));
  return name;
}

function encodeText(string, encoding) {
  switch (bufferEncoding(encoding)) {
    case 'hex': {
      const length = string.length >> 1;
      const bytes = new Uint8ArrayClass(length);
      let i = 0;
      // As Node: decoding stops at the first pair that is not hexadecimal.
      for (; i < length; i += 1) {
        const pair = string.slice(i * 2, i * 2 + 2);
        if (!/^[0-9a-fA-F]{2}$/.test(pair)) break;
        bytes[i] = parseInt(pair, 16);
      }
      return bytes.slice(0, i);
    }
    case 'base64':
    case 'base64url':
      return base64Decode(string);
    case 'latin1':
    case 'binary':
    case 'ascii': {
      const bytes = new Uint8ArrayClass(string.length);
      for (let i = 0; i < string.length; i += 1) bytes[i] = string.charCodeAt(i) & 0xff;
      return bytes;
    }
    default:
      return utf8Encode(string);
  }
}

function decodeBytes(bytes, encoding) {
  switch (bufferEncoding(encoding)) {
    case 'hex': {
      let out = '';
      for (let i = 0; i < bytes.length; i += 1) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
      return out;
    }
    case 'base64': return base64Encode(bytes, false);
    case 'base64url': return base64Encode(bytes, true);
    case 'latin1':
    case 'binary':
    case 'ascii': {
      const mask = bufferEncoding(encoding) === 'ascii' ? 0x7f : 0xff;
      let out = '';
      for (let i = 0; i < bytes.length; i += 1) out += fromCharCode(bytes[i] & mask);
      return out;
    }
    default: return utf8Decode(bytes, false);
  }
}

class Buffer extends Uint8ArrayClass {
  static from(value, encodingOrOffset, length) {
    if (typeof value === 'string') return Buffer.#of(encodeText(value, encodingOrOffset));
    if (value instanceof ArrayBufferClass) {
      const offset = encodingOrOffset === undefined ? 0 : Number(encodingOrOffset);
      return new Buffer(value, offset, length === undefined ? value.byteLength - offset : Number(length));
    }
    if (isView(value)) return Buffer.#of(new Uint8ArrayClass(value.buffer, value.byteOffset, value.byteLength).slice());
    if (isArray(value)) return Buffer.#of(Uint8ArrayClass.from(value));
    if (value !== null && typeof value === 'object' && value.type === 'Buffer' && isArray(value.data)) return Buffer.#of(Uint8ArrayClass.from(value.data));
    throw new TypeErrorClass('The first argument must be of type string, Buffer, ArrayBuffer, Array, or Array-like Object');
  }
  static #of(bytes) {
    return new Buffer(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  static alloc(size, fill, encoding) {
    const buffer = new Buffer(Buffer.#size(size));
    if (fill !== undefined && fill !== 0 && buffer.length > 0) {
      if (typeof fill === 'number') buffer.fill(fill);
      else {
        const pattern = typeof fill === 'string' ? encodeText(fill, encoding) : toBytes(fill, 'Buffer.alloc: fill');
        for (let i = 0; i < buffer.length && pattern.length > 0; i += 1) buffer[i] = pattern[i % pattern.length];
      }
    }
    return buffer;
  }
  static allocUnsafe(size) { return new Buffer(Buffer.#size(size)); }
  static #size(size) {
    if (typeof size !== 'number' || !(size >= 0) || size > 0x7fffffff) throw new RangeErrorClass('The size must be a number from 0 to 2147483647');
    return Math.floor(size);
  }
  static byteLength(value, encoding) {
    if (typeof value === 'string') return encodeText(value, encoding).length;
    return toBytes(value, 'Buffer.byteLength: the value').byteLength;
  }
  static isBuffer(value) { return value instanceof Buffer; }
  static isEncoding(encoding) { return typeof encoding === 'string' && BUFFER_ENCODINGS.includes(encoding.toLowerCase()); }
  static concat(list, totalLength) {
    if (!isArray(list)) throw new TypeErrorClass('Buffer.concat: the list must be an Array');
    const total = totalLength === undefined ? list.reduce((sum, item) => sum + item.length, 0) : Number(totalLength);
    const result = Buffer.alloc(total);
    let offset = 0;
    for (const item of list) {
      if (offset >= total) break;
      const bytes = toBytes(item, 'Buffer.concat: each item');
      result.set(bytes.subarray(0, total - offset), offset);
      offset += Math.min(bytes.length, total - offset);
    }
    return result;
  }
  toString(encoding, start, end) {
    const from = start === undefined ? 0 : Math.max(0, Number(start) | 0);
    const to = end === undefined ? this.length : Math.min(this.length, Number(end) | 0);
    return decodeBytes(to > from ? this.subarray(from, to) : new Uint8ArrayClass(0), encoding);
  }
  toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
  equals(other) {
    const bytes = toBytes(other, 'Buffer.equals: the argument');
    if (bytes.length !== this.length) return false;
    for (let i = 0; i < bytes.length; i += 1) if (bytes[i] !== this[i]) return false;
    return true;
  }
  // Node's slice shares the memory, as subarray does.
  slice(start, end) { return this.subarray(start, end); }
}
globalThis.Buffer = Buffer;

// ---- URLSearchParams (application/x-www-form-urlencoded, as the URL standard) ----
const paramLists = new WeakMap();
const paramOwners = new WeakMap();

function percentDecode(text) {
  const bytes = utf8Encode(text);
  const out = new Uint8ArrayClass(bytes.length);
  let length = 0;
  const hex = (byte) => (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102);
  for (let i = 0; i < bytes.length; i += 1) {
    if (bytes[i] === 37 && hex(bytes[i + 1]) && hex(bytes[i + 2])) {
      out[length++] = parseInt(fromCharCode(bytes[i + 1], bytes[i + 2]), 16);
      i += 2;
    } else out[length++] = bytes[i];
  }
  return utf8Decode(out.subarray(0, length), false);
}

function parseQuery(query) {
  const list = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const name = at === -1 ? part : part.slice(0, at);
    const value = at === -1 ? '' : part.slice(at + 1);
    list.push([percentDecode(name.replace(/\+/g, ' ')), percentDecode(value.replace(/\+/g, ' '))]);
  }
  return list;
}

function formEncode(text) {
  const bytes = utf8Encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i];
    if ((byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte === 42 || byte === 45 || byte === 46 || byte === 95) {
      out += fromCharCode(byte);
    } else if (byte === 32) out += '+';
    else out += '%' + (byte < 16 ? '0' : '') + byte.toString(16).toUpperCase();
  }
  return out;
}

function usvString(value) {
  return utf8Decode(utf8Encode(String(value)), false);
}

class URLSearchParams {
  constructor(init) {
    let list = [];
    if (init instanceof URLSearchParams) list = paramLists.get(init).map((pair) => [pair[0], pair[1]]);
    else if (init !== null && typeof init === 'object' && typeof init[Symbol.iterator] === 'function') {
      for (const pair of init) {
        const entry = [...pair];
        if (entry.length !== 2) throw new TypeErrorClass('URLSearchParams: each pair must have exactly two items');
        list.push([usvString(entry[0]), usvString(entry[1])]);
      }
    } else if (init !== null && typeof init === 'object') {
      for (const name of objectKeys(init)) list.push([usvString(name), usvString(init[name])]);
    } else if (init !== undefined && init !== null) {
      const query = usvString(init);
      list = parseQuery(query[0] === '?' ? query.slice(1) : query);
    }
    paramLists.set(this, list);
  }
  get size() { return paramLists.get(this).length; }
  append(name, value) {
    paramLists.get(this).push([usvString(name), usvString(value)]);
    paramsChanged(this);
  }
  delete(name, value) {
    const key = usvString(name);
    const only = value === undefined ? undefined : usvString(value);
    paramLists.set(this, paramLists.get(this).filter((pair) => pair[0] !== key || (only !== undefined && pair[1] !== only)));
    paramsChanged(this);
  }
  get(name) {
    const key = usvString(name);
    const found = paramLists.get(this).find((pair) => pair[0] === key);
    return found === undefined ? null : found[1];
  }
  getAll(name) {
    const key = usvString(name);
    return paramLists.get(this).filter((pair) => pair[0] === key).map((pair) => pair[1]);
  }
  has(name, value) {
    const key = usvString(name);
    const only = value === undefined ? undefined : usvString(value);
    return paramLists.get(this).some((pair) => pair[0] === key && (only === undefined || pair[1] === only));
  }
  set(name, value) {
    const key = usvString(name);
    const list = paramLists.get(this);
    const at = list.findIndex((pair) => pair[0] === key);
    if (at === -1) list.push([key, usvString(value)]);
    else {
      list[at] = [key, usvString(value)];
      paramLists.set(this, list.filter((pair, index) => index <= at || pair[0] !== key));
    }
    paramsChanged(this);
  }
  sort() {
    const list = paramLists.get(this);
    const units = (text) => Array.from({ length: text.length }, (_, i) => text.charCodeAt(i));
    const compare = (a, b) => {
      const left = units(a[0]);
      const right = units(b[0]);
      for (let i = 0; i < Math.min(left.length, right.length); i += 1) if (left[i] !== right[i]) return left[i] - right[i];
      return left.length - right.length;
    };
    paramLists.set(this, list.map((pair, index) => [pair, index]).sort((a, b) => compare(a[0], b[0]) || a[1] - b[1]).map((item) => item[0]));
    paramsChanged(this);
  }
  forEach(callback, thisArg) {
    for (const [name, value] of paramLists.get(this)) callback.call(thisArg, value, name, this);
  }
  keys() { return paramLists.get(this).map((pair) => pair[0])[Symbol.iterator](); }
  values() { return paramLists.get(this).map((pair) => pair[1])[Symbol.iterator](); }
  entries() { return paramLists.get(this).map((pair) => [pair[0], pair[1]])[Symbol.iterator](); }
  [Symbol.iterator]() { return this.entries(); }
  toString() { return paramLists.get(this).map((pair) => formEncode(pair[0]) + '=' + formEncode(pair[1])).join('&'); }
  get [Symbol.toStringTag]() { return 'URLSearchParams'; }
}
globalThis.URLSearchParams = URLSearchParams;

function paramsChanged(params) {
  const owner = paramOwners.get(params);
  if (owner !== undefined) owner(params.toString());
}

// ---- URL: parsed by the host with Node's URL (components come back as strings) ----
// The host answers [href, origin, protocol, username, password, host, hostname, port, pathname, search, hash].
function askHost(op, first, second) {
  const answer = callHost(hostUrl, op, first, second);
  if (!isArray(answer)) throw new TypeErrorClass('Invalid URL');
  return answer;
}

class URL {
  #parts;
  #params;
  constructor(input, base) {
    if (arguments.length === 0) throw new TypeErrorClass('URL: 1 argument required');
    this.#parts = askHost('parse', usvString(input), base === undefined ? undefined : usvString(base));
    this.#params = new URLSearchParams(this.#parts[9]);
    paramOwners.set(this.#params, (query) => {
      this.#parts = askHost('search', this.#parts[0], query === '' ? '' : '?' + query);
    });
  }
  static canParse(input, base) {
    return isArray(callHost(hostUrl, 'parse', usvString(input), base === undefined ? undefined : usvString(base)));
  }
  #update(part, value) {
    this.#parts = askHost(part, this.#parts[0], usvString(value));
    if (part === 'href' || part === 'search') paramLists.set(this.#params, parseQuery(this.#parts[9].slice(1)));
  }
  get href() { return this.#parts[0]; }
  set href(value) { this.#update('href', value); }
  get origin() { return this.#parts[1]; }
  get protocol() { return this.#parts[2]; }
  set protocol(value) { this.#update('protocol', value); }
  get username() { return this.#parts[3]; }
  set username(value) { this.#update('username', value); }
  get password() { return this.#parts[4]; }
  set password(value) { this.#update('password', value); }
  get host() { return this.#parts[5]; }
  set host(value) { this.#update('host', value); }
  get hostname() { return this.#parts[6]; }
  set hostname(value) { this.#update('hostname', value); }
  get port() { return this.#parts[7]; }
  set port(value) { this.#update('port', value); }
  get pathname() { return this.#parts[8]; }
  set pathname(value) { this.#update('pathname', value); }
  get search() { return this.#parts[9]; }
  set search(value) { this.#update('search', value); }
  get searchParams() { return this.#params; }
  get hash() { return this.#parts[10]; }
  set hash(value) { this.#update('hash', value); }
  toString() { return this.#parts[0]; }
  toJSON() { return this.#parts[0]; }
  get [Symbol.toStringTag]() { return 'URL'; }
}
globalThis.URL = URL;

// ---- crypto: randomness from the host's CSPRNG ----
const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
// Small requests (a UUID's 16 bytes) are served from a pool filled 4 KB at a time: one host call per 256 UUIDs.
const RANDOM_POOL_BYTES = 4096;
let randomPool = new Uint8ArrayClass(0);
function hostRandomBytes(count) {
  const bytes = callHost(hostRandom, count);
  if (!(bytes instanceof Uint8ArrayClass) || bytes.length !== count) throw new ErrorClass('crypto: no randomness available');
  return bytes;
}
function randomBytes(count) {
  if (count > 256) return hostRandomBytes(count);
  if (randomPool.length < count) randomPool = hostRandomBytes(RANDOM_POOL_BYTES);
  const bytes = randomPool.slice(0, count);
  // Handed out once: the pool moves past them.
  randomPool = randomPool.subarray(count);
  return bytes;
}
globalThis.crypto = {
  getRandomValues(array) {
    if (!INTEGER_ARRAYS.some((kind) => array instanceof kind)) {
      const error = new TypeErrorClass('crypto.getRandomValues: the argument must be an integer-type TypedArray');
      error.name = 'TypeMismatchError';
      throw error;
    }
    if (array.byteLength > 65536) {
      const error = new ErrorClass('crypto.getRandomValues: the ArrayBufferView byte length (' + array.byteLength + ') exceeds 65536');
      error.name = 'QuotaExceededError';
      throw error;
    }
    new Uint8ArrayClass(array.buffer, array.byteOffset, array.byteLength).set(randomBytes(array.byteLength));
    return array;
  },
  randomUUID() {
    const bytes = randomBytes(16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = decodeBytes(bytes, 'hex');
    return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
  },
};

// ---- timers: scheduled by the host within the execution, never outliving it ----
const timers = new MapClass();
let timerCount = 0;
let timersLeft = settings.maxTimers;
let timerCrash = null;

class Timeout {
  #id;
  constructor(id) { this.#id = id; }
  ref() { return this; }
  unref() { return this; }
  hasRef() { return true; }
  close() { clearTimer(this); return this; }
  [Symbol.toPrimitive]() { return this.#id; }
}

globalThis.setTimeout = function setTimeout(callback, delay, ...args) {
  if (typeof callback !== 'function') throw new TypeErrorClass('setTimeout: the callback must be a function');
  if (timersLeft <= 0) throw new RangeErrorClass('setTimeout: too many timers in one execution (the limit is ' + settings.maxTimers + ')');
  timersLeft -= 1;
  timerCount += 1;
  const id = timerCount;
  const ms = Number(delay);
  timers.set(id, () => callback(...args));
  hostTimer(id, ms >= 1 && ms <= 2147483647 ? Math.floor(ms) : 1);
  return new Timeout(id);
};
function clearTimer(timeout) {
  const id = timeout instanceof Timeout ? timeout[Symbol.toPrimitive]() : Number(timeout);
  if (timers.delete(id)) hostTimer(id, -1);
}
globalThis.clearTimeout = function clearTimeout(timeout) {
  clearTimer(timeout);
};

function fireTimer(id) {
  const callback = timers.get(id);
  if (callback === undefined) return;
  timers.delete(id);
  try {
    callback();
  } catch (error) {
    if (timerCrash !== null) timerCrash(error);
  }
}
`;
