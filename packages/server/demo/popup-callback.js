// The popup's redirect page: hands the result to the demo page that opened it.
const config = JSON.parse(document.getElementById('demo-config').textContent);
new latchkey.WebAuth({ domain: config.domain, clientID: config.clientID }).popup.callback();
