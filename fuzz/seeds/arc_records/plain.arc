filedesc://x.arc 0.0.0.0 20080430204825 text/plain 63
1 0 IA
URL IP-address Archive-date Content-type Archive-length

http://a.example/ 1.2.3.4 20080430204825 text/html 240
HTTP/1.1 200 OK
Content-Type: text/html

<!doctype html><html><head><meta charset=windows-1252><title>Tést &amp; more</title></head><body><div><p>Wire story &#x1b;[31m text é</p><script>x()</script><ul><li>a<li>b</ul></div></body></html>
