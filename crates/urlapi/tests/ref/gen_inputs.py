#!/usr/bin/env python3
"""Writes inputs.txt for urlref.c: URL inputs crossed with flag sets.

Regenerate the expected table (from this directory):
  python3 gen_inputs.py > inputs.txt
  R=~/.cache/oxcurl-reference
  gcc -O1 -o /tmp/urlref urlref.c -I$R/include -L$R/lib -lcurl
  LD_LIBRARY_PATH=$R/lib /tmp/urlref < inputs.txt > ../cases.tsv
"""


def esc(s):
    out = []
    for ch in s.encode("utf-8"):
        if ch == 0x5C:
            out.append("\\\\")
        elif ch < 0x20 or ch == 0x7F:
            out.append("\\x%02x" % ch)
        else:
            out.append(chr(ch) if ch < 0x80 else None)
    # keep UTF-8 text as is
    res = ""
    raw = s.encode("utf-8")
    i = 0
    for ch in raw:
        if ch == 0x5C:
            res += "\\\\"
        elif ch < 0x20 or ch == 0x7F:
            res += "\\x%02x" % ch
        elif ch >= 0x80:
            res += "\\x%02x" % ch
        else:
            res += chr(ch)
    return res


URLS = r"""
http://example.com
http://example.com/
https://example.com/path/to/file.html
HTTP://EXAMPLE.COM/Path
hTtPs://ExAmPlE.cOm:443/
http://example.com:80/
http://example.com:8080/x
http://example.com:/x
http://example.com:0/
http://example.com:65535/
http://example.com:65536/
http://example.com:00080/
http://example.com:000000000000000000000000080/
http://example.com:-1/
http://example.com:+80/
http://example.com:8a/
http://example.com:99999999999999999999999/
http://example.com: 80/
http://user@example.com/
http://user:pass@example.com/
http://user:pass;opt@example.com/
http://user;opt:pass@example.com/
imap://user;AUTH=PLAIN@example.com/
imap://user:pass;AUTH=*@example.com/INBOX
imap://;AUTH=x@example.com/
smtp://user;opt@example.com/
pop3://a:b;c@example.com/
ftp://user:pa:ss@example.com/
http://:@example.com/
http://@example.com/
http://:pass@example.com/
http://user:@example.com/
http://us%40er:p%3Ass@example.com/
http://user@example.com:80@daniel.haxx.se
http://user@example.com@daniel.haxx.se/
http://a@b@c/
http://user@/
http://user@:80/
http://:80/
http:///
http://
http:/example.com/
http:example.com/
http:////example.com/
http://///example.com/
http:///example.com/
example.com
example.com/path
example.com:8080/path
ftp.example.com
ftp.example.com/file
dict.example.com
ldap.example.com
imap.example.com
smtp.example.com
pop3.example.com
FTP.example.com
www.example.com
localhost:3000
user:pass@example.com
http://[::1]/
http://[::1]:8080/
http://[::1]x/
http://[::1/
http://[]/
http://[::]/
http://[0:0:0:0:0:0:0:1]/
http://[0000:0000:0000:0000:0000:0000:0000:0001]/
http://[1:2:3:4:5:6:7:8]/
http://[1:2:3:4:5:6:7::]/
http://[1:2:3:4:5:6:7:8:9]/
http://[1::2::3]/
http://[ABCD:EF01::1]/
http://[::ffff:192.168.0.1]/
http://[::ffff:c0a8:1]/
http://[::192.168.0.1]/
http://[::2]/
http://[::0.0.0.2]/
http://[1:0:0:2:0:0:0:3]/
http://[1:0:0:0:2:0:0:3]/
http://[2001:db8::1:0:0:1]/
http://[2001:0db8:0000:0000:0000:0000:0001:0000]/
http://[12345::1]/
http://[::1.2.3]/
http://[::01.2.3.4]/
http://[g::1]/
http://[fe80::1%25eth0]/
http://[fe80::1%eth0]/
http://[fe80::1%25]/
http://[fe80::1%]/
http://[fe80::1%2]/
http://[fe80::1%25eth0]:8080/p
http://[fe80::1%25abcdefghijklmnop]/
http://[fe80::1%25abcdefghijklmno]/
http://[fe80::1%252]/
http://[fe80::1%25%32]/
http://[fe80:0:0:0:0:0:0:1%25eth0]/
http://[::1]:/
http://[::1]:99999/
http://127.0.0.1/
http://127.1/
http://127.0.1/
http://0x7f.1/
http://0x7F000001/
http://2130706433/
http://017700000001/
http://0177.0.0.1/
http://0x7f.0x0.0x0.0x1/
http://4294967295/
http://4294967296/
http://256.0.0.1/
http://1.256.0.1/
http://1.2.65535/
http://1.2.65536/
http://1.16777215/
http://1.16777216/
http://1.2.3.4.5/
http://1.2.3./
http://1..2/
http://08/
http://0x/
http://0xg/
http://09.1.1.1/
http://1.2.3.4:80/
http://0/
http://00/
http://999999999999999999999999/
http://example.com./
http://exa_mple.com/
http://exa mple.com/
http://exa%20mple.com/
http://ex%61mple.com/
http://ex%2fmple.com/
http://ex%zzmple.com/
http://ex%00mple.com/
http://ex%7fmple.com/
http://ex%c3%a5mple.com/
http://example!.com/
http://exa$mple.com/
http://exa'mple.com/
http://exa"mple.com/
http://exa^mple.com/
http://exa`mple.com/
http://exa*mple.com/
http://exa<mple.com/
http://exa=mple.com/
http://exa;mple.com/
http://exa,mple.com/
http://exa+mple.com/
http://exa&mple.com/
http://exa(mple.com/
http://exa{mple.com/
http://exa|mple.com/
http://exa~mple.com/
http://exa\mple.com/
http://example.com\path
http://ex-ample.com/
http://räksmörgås.se/
http://ÄÖÜ.example/
http://xn--rksmrgs-5wao1o.se/
http://日本語.jp/path
http://example.com/a/./b/../c
http://example.com/a/b/c/../../d
http://example.com/../a
http://example.com/./a
http://example.com/a/..
http://example.com/a/.
http://example.com/a/../../..
http://example.com/.
http://example.com/..
http://example.com/...
http://example.com/a/.../b
http://example.com/a/.b/..c/
http://example.com/a/b/..?x=../y
http://example.com/a/b/.?x
http://example.com/a/%2e%2e/b
http://example.com//a//b
http://example.com/a b
http://example.com/a%20b
http://example.com/a%2Fb
http://example.com/%41%42
http://example.com/ä
http://example.com/?
http://example.com/?#
http://example.com?q
http://example.com?q=1&r=2
http://example.com#frag
http://example.com/#
http://example.com/p?q=a b#f g
http://example.com/p?q=a+b
http://example.com/p?q=%20%2B
http://example.com/p?q#f#g
http://example.com/p#f?g
http://example.com/p?q?r
http://example.com/p?q=ä#ö
http://example.com/%ZZ
http://example.com/%
http://example.com/%%
 http://example.com/
http://example.com/ 
http://example.com/	x
http://example.com/\x01
http://example.com/\x7f
http://exa\x7fmple.com/
file:///etc/passwd
file:///
file://
file:/
file:/etc/passwd
file:etc/passwd
file:ab
file:a
file://localhost/etc/passwd
file://LOCALHOST/etc/passwd
file://127.0.0.1/etc/passwd
file://example.com/etc/passwd
file://localhost
file://localhost/
file:///c:/windows
file:///C|/windows
file://c:/windows
file:c:/windows
file:/c:/x
file:///a/./b/../c
file:///a?q#f
file:///a#f
file:///a b
FILE:///x
file:////x
file://///x
file:.
file:..
file:./a
file:../a
data:text/plain,hello
mailto:user@example.com
foo://example.com/
foo:/x
foo:x
a123456789012345678901234567890123456789://x/
a1234567890123456789012345678901234567890://x/
12http://x/
+http://x/
http+x://x/
ht.tp://x/
ws://example.com/chat
wss://example.com:443/chat
ftp://ftp.example.com/pub/file.txt
ftps://example.com/
sftp://user@example.com/~/file
scp://example.com/file
smb://server/share
ldap://ldap.example.com/dc=example,dc=com?cn?sub?(cn=x)
dict://dict.org/d:word
gopher://gopher.example.com/1
tftp://example.com/file
telnet://example.com
mqtt://broker/topic
rtsp://example.com/stream
rtmp://example.com/app
imaps://example.com/
pop3s://example.com/
smtps://example.com/
ldaps://example.com/
gophers://example.com/
smbs://server/share
http://example.com:80
http://example.com:80?x
http://example.com:80#x
http://host?x=http://a/b
http://host#x/y
http://host/x:y@z
http://a:b@c:d@e/
http://a%3Ab@c/
http://a%zz@c/
http://a\x01b@c/
http://[::1]@host/
http://host@[::1]/
http://user:pa@ss@host/
//example.com/path
/path/only
?query
#frag
.
..

http:
http:/
http:?x
http:#x
http://?x
http://#x
http://:/
http://%/
http://%41/
http://a:b@/
http://1.2.3.4:65535/
http://1.2.3.4:65536/
http://[::1]:65535/
http://0x100000000/
http://0x7fffffff/
http://0xffffffff/
http://0xFFFFFFFF/
http://0Xa.1/
http://1.0x10.1/
http://1.2.0x10000/
http://01.02.03.04/
http://0.0.0.0/
http://1.2.3.4%20/
http://%31.2.3.4/
HTTP://[::1]/
https://user:pass@[::1]:443/p?q#f
http://example.com/p?a=1&b=2#sec
http://a/b/c/d;p?q
http://host/;x
http://host/a;b/c
http://example.com:8080
http://example.com:080
ftp://example.com:21/
ftps://example.com:990/
https://example.com:80/
http://xn--/
http://xn--abc/
http://XN--rksmrgs-5wao1o.se/
http://a.xn--rksmrgs-5wao1o.se/
http://éxample.com/
http://example.com/%7e
http://example.com/%7E
http://example.com/?%7E
http://example.com/#%7E
http://straße.de/
http://faß.de/
http://☃.net/
http://ａｂｃ.com/
http://xn--n3h.net/
http://Bücher.example/
http://ä./
http://-ä.de/
http://ä-.de/
http://a.ä..b/
http://xn--strae-oqa.de/
http://xn--zca.de/
http://ÖBB.at/
http://ä%2eb/
http://\u00e4b.c/
"""

SETFLAGS = [0x0, 0x4, 0x200, 0x8, 0x10, 0x80, 0x800, 0x20, 0x408, 0x88C]
GETSETS = [0x0]
EXTRA_GET = [0x1, 0x2, 0x40, 0x80, 0x1000, 0x2000, 0x4000, 0x8000, 0x4040, 0x1003]

JOINS = r"""
http://a/b/c/d;p?q	g
http://a/b/c/d;p?q	./g
http://a/b/c/d;p?q	g/
http://a/b/c/d;p?q	/g
http://a/b/c/d;p?q	//g
http://a/b/c/d;p?q	?y
http://a/b/c/d;p?q	g?y
http://a/b/c/d;p?q	#s
http://a/b/c/d;p?q	g#s
http://a/b/c/d;p?q	g?y#s
http://a/b/c/d;p?q	;x
http://a/b/c/d;p?q	g;x
http://a/b/c/d;p?q	g;x?y#s
http://a/b/c/d;p?q	.
http://a/b/c/d;p?q	./
http://a/b/c/d;p?q	..
http://a/b/c/d;p?q	../
http://a/b/c/d;p?q	../g
http://a/b/c/d;p?q	../..
http://a/b/c/d;p?q	../../
http://a/b/c/d;p?q	../../g
http://a/b/c/d;p?q	../../../g
http://a/b/c/d;p?q	../../../../g
http://a/b/c/d;p?q	/./g
http://a/b/c/d;p?q	/../g
http://a/b/c/d;p?q	g.
http://a/b/c/d;p?q	.g
http://a/b/c/d;p?q	g..
http://a/b/c/d;p?q	..g
http://a/b/c/d;p?q	./../g
http://a/b/c/d;p?q	./g/.
http://a/b/c/d;p?q	g/./h
http://a/b/c/d;p?q	g/../h
http://a/b/c/d;p?q	g;x=1/./y
http://a/b/c/d;p?q	g;x=1/../y
http://a/b/c/d;p?q	g?y/./x
http://a/b/c/d;p?q	g?y/../x
http://a/b/c/d;p?q	g#s/./x
http://a/b/c/d;p?q	g#s/../x
http://a/b/c/d;p?q	http:g
http://a/b/c/d;p?q	https://other/x
http://a/b/c/d;p?q	ftp://other/x
http://a/b/c/d;p?q	foo://other/x
http://a/b/c/d;p?q	//other:8080/x?y
http://a/b/c/d;p?q	//user@other/x
http://a/b/c/d;p?q	//other/x y
http://a/b/c/d;p?q	x y?a b#c d
http://a/b/c/d;p?q	ä/ö?ü
http://a/b/c/d;p?q	/x#
http://a/b/c/d;p?q	?
http://a/b/c/d;p?q	#
http://a/b/c/d;p?q	
http://a/b/c/d;p?q	 
http://a/b/c/d;p?q	\x01
https://u:p@host:8443/dir/file?q#f	other
https://u:p@host:8443/dir/file?q#f	/abs
https://u:p@host:8443/dir/file?q#f	?newq
https://u:p@host:8443/dir/file?q#f	#newf
https://u:p@host:8443/dir/file?q#f	//h2
https://u:p@host:8443/dir/file#f	?newq
https://u:p@host:8443/dir/file#f	x
http://h/a#x/y?z	b
http://h/a/b?x/y	c
http://h	x
http://h	?q
http://h	#f
http://h?q	x
http://[::1]:8080/a/b	c
http://[fe80::1%25eth0]/a	b
file:///a/b/c	d
file:///a/b/c	/d
file:///a/b/c	../d
file:///a/b/c	//localhost/d
file:///a/b/c	?q
file:///a/b/c	#f
http://h/a/b	c:d
http://h/a/b	c:/d
http://h/a/b	1:/d
http://h/a/b	http:/d
http://h/a/b	http:d
http://h/a/b	HTTPS://X/Y
http://h/a/b	///x
http://h/a/b	////x
http://h/a/b	//
http://h/a/b	//:80/
http://h/a/b	//[::1]/x
http://h/a/b	//ä.se/x
http://h/a/b	./../../../x
http://h/a/b	%2e%2e/x
http://h/a/b	x?y=1&z=a b
imap://u;AUTH=x@h/INBOX	other
http://ä.se/a	b
http://h/a/b	\t
http://h/a/b	\x7f
http://h/a/b	\x01x y
http://h/a/b?q	#
http://h/a/b#	?x
http://h/a/b?	x
"""

JOINFLAGS = [0x0, 0x10, 0x80, 0x800, 0x4, 0x208, 0x8]

SETS = r"""
http://h/a?q#f	1	https
http://h/a?q#f	1	HTTPS
http://h/a?q#f	1	foo
http://h/a?q#f	1	1http
http://h/a?q#f	1	
http://h/a?q#f	1	\N
http://h/a?q#f	2	us er
http://h/a?q#f	2	us%4Fer
http://h/a?q#f	2	\N
http://h/a?q#f	3	p@ss
http://h/a?q#f	4	opt
http://h/a?q#f	5	example.org
http://h/a?q#f	5	exa mple.org
http://h/a?q#f	5	ex%61mple
http://h/a?q#f	5	ex%zzmple
http://h/a?q#f	5	
http://h/a?q#f	5	[::1]
http://h/a?q#f	5	[::1
http://h/a?q#f	5	räk.se
http://h/a?q#f	5	\N
http://h/a?q#f	5	[fe80::1%25eth0]
http://h/a?q#f	5	[fe80::1]
http://h/a?q#f	5	[::1]x
http://h/a?q#f	5	EXAMPLE.com
http://h/a?q#f	6	8080
http://h/a?q#f	6	080
http://h/a?q#f	6	65536
http://h/a?q#f	6	x
http://h/a?q#f	6	
http://h/a?q#f	6	\N
http://h/a?q#f	7	/new/path
http://h/a?q#f	7	new path
http://h/a?q#f	7	/a/../b
http://h/a?q#f	7	%2F%41
http://h/a?q#f	7	
http://h/a?q#f	7	\N
http://h/a?q#f	8	a=b c&d=e
http://h/a?q#f	8	x+y
http://h/a?q#f	8	
http://h/a?q#f	8	\N
http://h/a?q#f	9	frag ment
http://h/a?q#f	9	
http://h/a?q#f	9	\N
http://h/a?q#f	10	eth1
http://[fe80::1]/	10	eth1
http://h/a?q#f	0	\N
http://h/a?q#f	0	/rel
http://h/a?q#f	0	
http://h/a?q#f	99	x
"""
SETFL = [0x0, 0x80, 0x8, 0x180, 0x400]

print("# generated by gen_inputs.py")
urls = [u for u in URLS.split("\n")]
urls = urls[1:-1]
for u in urls:
    u = u.encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8") if "\\x" in u else u
    for sf in SETFLAGS:
        print("P\t%x\t%x\t%s" % (sf, 0, esc(u)))
    for gf in EXTRA_GET:
        print("P\t%x\t%x\t%s" % (0x8, gf, esc(u)))
for j in JOINS.split("\n")[1:-1]:
    base, rel = j.split("\t")
    if "\\x" in rel:
        rel = rel.encode().decode("unicode_escape")
    for jf in JOINFLAGS:
        print("J\t%x\t%x\t%s\t%s" % (jf, 0, esc(base), esc(rel)))
for s in SETS.split("\n")[1:-1]:
    base, part, val = s.split("\t")
    for sf in SETFL:
        v = "\\N" if val == "\\N" else esc(val)
        print("S\t%x\t%x\t%s\t%s\t%s" % (sf, 0, esc(base), part, v))
# appendquery
for v in ["a=b", "a b=c d", "x==y", "&z", "k=v&w"]:
    for sf in [0x100, 0x180]:
        for base in ["http://h/", "http://h/?q", "http://h/?q&", "http://h/?"]:
            print("S\t%x\t%x\t%s\t8\t%s" % (sf, 0, base, esc(v)))
