// Vigil technician's page: live updates, and the backup and update uploads of the System view (the forms that need it).
// Every other view is complete without this script. No inline code anywhere (the Content-Security-Policy
// forbids it); the CSRF token comes from <body data-csrf>.
'use strict';
(function () {
  var csrf = document.body.getAttribute('data-csrf') || '';

  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value === null || value === undefined || value === '' ? '—' : String(value);
    if (cls) el.className = cls;
    return el;
  }

  function utc(iso) {
    return iso ? iso.slice(0, 19).replace('T', ' ') : '—';
  }

  // Status: refresh the view in place every few seconds.
  var refresh = document.querySelector('[data-refresh]');
  if (refresh) {
    var every = Number(refresh.getAttribute('data-refresh')) * 1000;
    setInterval(function () {
      if (document.hidden) return;
      fetch(location.href, { credentials: 'same-origin' })
        .then(function (r) {
          if (!r.ok) return null;
          return r.text();
        })
        .then(function (html) {
          if (!html) return;
          var doc = new DOMParser().parseFromString(html, 'text/html');
          var next = doc.querySelector('[data-refresh]');
          var current = document.querySelector('[data-refresh]');
          if (next && current) current.replaceWith(next);
        })
        .catch(function () {});
    }, every);
  }

  // Events: live tail over Server-Sent Events, with the page's own filters.
  var tail = document.querySelector('[data-live]');
  if (tail && window.EventSource) {
    var body = tail.querySelector('tbody');
    var badge = document.getElementById('live-state');
    var source = new EventSource(tail.getAttribute('data-live'));
    source.addEventListener('open', function () {
      if (badge) {
        badge.textContent = 'live';
        badge.className = 'pill state-live live-state';
      }
    });
    source.addEventListener('error', function () {
      if (badge) {
        badge.textContent = 'reconnecting';
        badge.className = 'pill state-degraded live-state';
      }
    });
    // The server ends the tail when the session lost its right to it (logout, password, scope, receivers).
    source.addEventListener('ended', function () {
      source.close();
      if (badge) {
        badge.textContent = 'ended: reload the page';
        badge.className = 'pill state-failed live-state';
      }
    });
    source.addEventListener('event', function (message) {
      var e = JSON.parse(message.data);
      if (body.querySelector('tr[data-id="' + e.id + '"]')) return;
      var empty = body.querySelector('tr.empty-row');
      if (empty) empty.remove();
      var row = document.createElement('tr');
      row.setAttribute('data-id', e.id);
      row.className = 'fresh';
      function cell(label, value, cls) {
        var td = text('td', value, cls);
        td.setAttribute('data-label', label);
        row.appendChild(td);
      }
      cell('Received', utc(e.received_at), 'mono');
      cell('Receiver', e.receiver_id === null ? 'gateway' : e.receiver_id);
      cell('Account', e.account, 'mono');
      cell('Q', e.qualifier, e.qualifier ? 'qual-' + e.qualifier : '');
      cell('Code', e.code, 'mono');
      cell('Zone', e.zone_no, 'mono');
      cell('Text', e.text);
      cell('Protocol', e.protocol);
      body.insertBefore(row, body.firstChild);
      while (body.rows.length > 200) body.deleteRow(body.rows.length - 1);
    });
  }

  // Device: send over fetch and show each reply packet as it arrives (the server streams them).
  var deviceForm = document.querySelector('form[data-stream]');
  if (deviceForm && window.fetch && window.TextDecoder) {
    deviceForm.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var out = document.getElementById('device-result');
      out.textContent = '';
      var card = document.createElement('section');
      card.className = 'card';
      card.appendChild(text('h2', 'Reply'));
      var waiting = text('p', 'Sent. Waiting for the device (at most 10 s)…', 'alert info');
      card.appendChild(waiting);
      var list = document.createElement('ol');
      list.className = 'packets';
      list.id = 'packets';
      card.appendChild(list);
      out.appendChild(card);
      var button = deviceForm.querySelector('button[type=submit]');
      button.disabled = true;
      var data = new URLSearchParams(new FormData(deviceForm));
      fetch(deviceForm.getAttribute('data-stream'), {
        method: 'POST',
        credentials: 'same-origin',
        body: data,
        headers: { 'X-CSRF-Token': csrf, Accept: 'text/event-stream' },
      })
        .then(function (response) {
          if (!response.ok || !response.body) {
            waiting.textContent = 'Refused (' + response.status + '). Reload the page and log in again.';
            waiting.className = 'alert error';
            button.disabled = false;
            return;
          }
          var reader = response.body.getReader();
          var decoder = new TextDecoder();
          var buffer = '';
          function handle(block) {
            var type = 'message',
              payload = '';
            block.split('\n').forEach(function (line) {
              if (line.indexOf('event:') === 0) type = line.slice(6).trim();
              else if (line.indexOf('data:') === 0) payload += line.slice(5).trim();
            });
            if (!payload) return;
            var msg = JSON.parse(payload);
            if (type === 'packet') {
              var item = document.createElement('li');
              item.appendChild(text('span', '#' + msg.number));
              item.appendChild(document.createTextNode(msg.hex || '(empty)'));
              list.appendChild(item);
              waiting.textContent = 'Receiving reply packets…';
            } else if (type === 'result') {
              waiting.textContent = msg.summary;
              waiting.className = msg.ok ? 'alert ok' : 'alert error';
              var fields = document.createElement('dl');
              fields.className = 'reply-fields';
              Object.keys(msg.reply).forEach(function (key) {
                if (key === 'data') return;
                fields.appendChild(text('dt', key));
                fields.appendChild(text('dd', msg.reply[key]));
              });
              card.appendChild(fields);
            }
          }
          function pump() {
            return reader.read().then(function (step) {
              if (step.done) {
                button.disabled = false;
                return;
              }
              buffer += decoder.decode(step.value, { stream: true });
              var cut;
              while ((cut = buffer.indexOf('\n\n')) >= 0) {
                handle(buffer.slice(0, cut));
                buffer = buffer.slice(cut + 2);
              }
              return pump();
            });
          }
          return pump();
        })
        .catch(function () {
          waiting.textContent = 'The connection to the gateway was lost.';
          waiting.className = 'alert error';
          button.disabled = false;
        });
    });
  }

  // System uploads (a backup to restore, an update bundle): the file goes as the raw request body (a multipart
  // form would be held whole in memory), with the CSRF token in a header and an upload progress bar. `o.url`,
  // `o.headers`, the three elements, `o.checking` (shown once every byte is sent), `o.done(answer)` (the text of
  // a 200) and `o.unchanged` (what a refusal or a lost connection leaves as it was).
  function sendWithProgress(file, o) {
    var xhr = new XMLHttpRequest();
    xhr.open('POST', o.url);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('X-CSRF-Token', csrf);
    Object.keys(o.headers).forEach(function (name) {
      xhr.setRequestHeader(name, o.headers[name]);
    });
    o.bar.hidden = false;
    o.bar.value = 0;
    o.button.disabled = true;
    o.result.className = 'alert info';
    o.result.textContent = 'Uploading…';
    xhr.upload.addEventListener('progress', function (p) {
      if (p.lengthComputable) o.bar.value = Math.round((p.loaded / p.total) * 100);
      if (p.loaded === p.total) o.result.textContent = o.checking;
    });
    xhr.addEventListener('load', function () {
      o.button.disabled = false;
      if (xhr.status === 200) {
        o.result.className = 'alert ok';
        o.result.textContent = o.done(JSON.parse(xhr.responseText));
      } else {
        o.result.className = 'alert error';
        var type = xhr.getResponseHeader('Content-Type') || '';
        o.result.textContent =
          'Refused (' +
          xhr.status +
          '): ' +
          (type.indexOf('text/plain') === 0 ? xhr.responseText : 'reload the page and log in again.') +
          ' ' +
          o.unchanged;
      }
    });
    xhr.addEventListener('error', function () {
      o.button.disabled = false;
      o.result.className = 'alert error';
      o.result.textContent = 'The connection to the gateway was lost. ' + o.unchanged;
    });
    xhr.send(file);
  }

  // System: a backup to restore, with its passphrase in a header.
  var uploadForm = document.querySelector('form[data-upload]');
  if (uploadForm && window.XMLHttpRequest && window.TextEncoder) {
    uploadForm.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var file = uploadForm.querySelector('input[type=file]').files[0];
      if (!file) return;
      var pass = uploadForm.querySelector('input[name=restore_passphrase]').value;
      var fresh = uploadForm.querySelector('input[name=new_identity]').checked;
      // A header value is bytes: the passphrase travels as its UTF-8 bytes, as curl sends it.
      var bytes = '';
      new TextEncoder().encode(pass).forEach(function (b) {
        bytes += String.fromCharCode(b);
      });
      sendWithProgress(file, {
        url: uploadForm.getAttribute('data-upload') + (fresh ? '?new_identity=1' : ''),
        headers: { 'X-Vigil-Backup-Passphrase': bytes },
        result: document.getElementById('restore-result'),
        bar: document.getElementById('restore-progress'),
        button: uploadForm.querySelector('button[type=submit]'),
        checking: 'Uploaded. Checking the whole file…',
        unchanged: 'Nothing was staged.',
        done: function (answer) {
          var b = answer.backup;
          return (
            'Checked and staged: the backup of ' +
            (b.instance_name || 'a box') +
            ' made ' +
            utc(b.created_at) +
            ' by version ' +
            b.app_version +
            ". It replaces this box's data at the next start of the gateway."
          );
        },
      });
    });
  }

  // System: an update bundle; the answer comes once the gateway has checked and installed it (minutes on a Pi).
  var updateForm = document.querySelector('form[data-update-upload]');
  if (updateForm && window.XMLHttpRequest) {
    updateForm.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var file = updateForm.querySelector('input[type=file]').files[0];
      if (!file) return;
      var downgrade = updateForm.querySelector('input[name=allow_downgrade]').checked;
      sendWithProgress(file, {
        url: updateForm.getAttribute('data-update-upload') + (downgrade ? '?allow_downgrade=1' : ''),
        headers: {},
        result: document.getElementById('update-result'),
        bar: document.getElementById('update-progress'),
        button: updateForm.querySelector('button[type=submit]'),
        checking: 'Uploaded. Checking the signature and every byte, then installing…',
        unchanged: 'Nothing was changed.',
        done: function (answer) {
          var u = answer.update;
          return (
            'Installed: version ' +
            u.to_version +
            ' in slot ' +
            u.slot +
            '. Reboot to start it; it is confirmed once it runs healthy, or the box returns to ' +
            u.from_version +
            ' by itself.'
          );
        },
      });
    });
  }

  // Forms that need a confirmation (restart): the server checks it too.
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (ev) {
      if (!window.confirm(form.getAttribute('data-confirm'))) ev.preventDefault();
    });
  });
})();
