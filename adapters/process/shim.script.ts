// The job shim, in Perl (perl-base is on nearly every Linux; Bun inside opencode loads no native addon and Forge
// ships no compiled code). It makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): every orphaned
// descendant of the job reparents to it, whatever it did to its environment, session or process group. So the
// job's whole tree stays the shim's subtree, found by walking PPid from the shim's pid.
//
// Channels: stdout (a pipe the host reads) gets one line per event — `ready`, `spawned <pid>`,
// `exit <code|-> <signal number|->`, `fail <reason>`; the shim moves it off fd 1 first, so the shell's stdout and
// stderr are both stderr, the job's log. stdin is a pipe the host only writes commands to (`kill <graceMs>`); its
// EOF means the host died. No channel rides an extra fd: Bun (opencode's runtime) closes an extra stdio pipe's
// number twice, the second time under whatever the process opened there since.
//
// The job is described by FORGE_SHIM_SPEC (hex fields separated by spaces: mode, status file, marker lines, then
// the shell's argv), never in the shim's argv, so that neither the command nor the markers show on the shim.
// Mode `probe` only checks that the subreaper can be set, and exits.
export const SHIM_SCRIPT = String.raw`
# No POSIX module: loading it costs more than the rest of the start (every job pays it). Linux constants instead:
# WNOHANG is 1 and EINTR is 4 on every architecture; setsid and prctl go through syscall() by number.
use strict; use Config;
$0 = "forge-job-shim";
$SIG{$_} = "IGNORE" for qw(HUP INT TERM QUIT PIPE USR1 USR2);
# The report is a dup of stdout above $^F, so close-on-exec; then stdout becomes the log like stderr.
my $rep;
open($rep, ">&", \*STDOUT) or exit 120;
open(STDOUT, ">&", \*STDERR) or exit 121;
sub tell_host { syswrite($rep, "$_[0]\n") if defined $rep; }
sub fail { tell_host("fail $_[0]"); exit 0; }

my $spec = delete $ENV{FORGE_SHIM_SPEC};
defined $spec or fail("no FORGE_SHIM_SPEC");
my ($mode, $status, $markers, @argv) = map { pack("H*", $_) } split / /, $spec;
my $arch = $Config{archname};
# [prctl, setsid] per architecture.
my $nrs = $arch =~ /^x86_64-linux(?!-gnux32)/ ? [157, 112]
  : $arch =~ /^(?:aarch64|riscv64)-linux/ ? [167, 157]
  : $arch =~ /^(?:i[3-6]86|arm\w*)-linux/ ? [172, 66]
  : $arch =~ /^s390x?-linux/ ? [172, 147]
  : $arch =~ /^(?:powerpc|ppc)\w*-linux/ ? [171, 149] : undef;
defined $nrs or fail("perl's architecture $arch has no known prctl number");
my ($nr, $setsid_nr) = @$nrs;
syscall($nr, 36, 1, 0, 0, 0) == 0 or fail("prctl(PR_SET_CHILD_SUBREAPER) failed: $!");
my $got = pack("i", 0);
(syscall($nr, 37, $got, 0, 0, 0) == 0 && unpack("i", $got) == 1) or fail("prctl(PR_GET_CHILD_SUBREAPER) does not confirm");
# Without /proc the subtree cannot be walked, and a kill could never finish.
opendir(my $proc, "/proc") && -r "/proc/$$/stat" or fail("cannot read /proc, where the shim finds the job's processes");
closedir $proc;
tell_host("ready");
exit 0 if $mode eq "probe";
@argv or fail("no command");

# The sync pipe is close-on-exec: its EOF tells the shim the shell runs (in its own session) or could not start.
pipe(my $sync_r, my $sync_w) or fail("pipe failed: $!");
my $shell = fork;
defined $shell or fail("fork failed: $!");
if ($shell == 0) {
  close $sync_r;
  $SIG{$_} = "DEFAULT" for qw(HUP INT TERM QUIT PIPE USR1 USR2 CHLD);
  syscall($setsid_nr) > 0 or setpgrp(0, 0);
  close $rep;
  open(STDIN, "<", "/dev/null");
  for (split /\n/, $markers) { my ($k, $v) = split /=/, $_, 2; $ENV{$k} = $v if defined $v; }
  exec { $argv[0] } @argv or syswrite($sync_w, "cannot exec $argv[0]: $!");
  exit 127;
}
close $sync_w;
my $exec_error = "";
1 while sysread($sync_r, $exec_error, 512, length $exec_error);
close $sync_r;
if ($exec_error ne "") { waitpid($shell, 0); fail($exec_error); }
tell_host("spawned $shell");

my $shell_done = 0;
my $fenced = $mode eq "fenced";
# A child's exit interrupts the select below, so the shell's exit is reported at once.
$SIG{CHLD} = sub { };

sub reap {
  for (;;) {
    my $pid = waitpid(-1, 1);
    return $pid if $pid <= 0;
    next unless $pid == $shell;
    my $st = $?;
    my $line = ($st & 127) ? "exit - " . ($st & 127) : "exit " . ($st >> 8) . " -";
    # The status file first: whoever hears of the exit can read it.
    if (open(my $fh, ">", "$status.$$")) { print $fh "$line\n"; rename("$status.$$", $status) if close($fh); }
    tell_host($line);
    $shell_done = 1;
  }
}

sub descendants {
  my %kids;
  opendir(my $d, "/proc") or return ();
  for my $p (readdir $d) {
    next unless $p =~ /^\d+$/;
    open(my $f, "<", "/proc/$p/stat") or next;
    my $s = <$f>;
    close $f;
    next unless defined $s && $s =~ /^\d+ \(.*\) (\S) (\d+) /s;
    push @{ $kids{$2} }, [$p, $1];
  }
  closedir $d;
  my @live;
  my @queue = ($$);
  while (@queue) {
    for my $k (@{ $kids{ shift @queue } || [] }) {
      push @queue, $k->[0];
      push @live, $k->[0] unless $k->[1] eq "Z" || $k->[1] eq "X";
    }
  }
  return @live;
}

# SIGTERM the subtree, wait up to the grace, then SIGKILL until no child is left; then leave.
sub kill_all {
  my ($grace) = @_;
  my %termed;
  for (my $waited = 0; $grace > 0 && $waited < $grace; $waited += 20) {
    reap();
    my @live = descendants();
    last unless @live;
    my @fresh = grep { !$termed{$_}++ } @live;
    kill "TERM", @fresh if @fresh;
    select(undef, undef, undef, 0.02);
  }
  for (;;) {
    my $left = reap();
    my @live = descendants();
    exit 0 if !@live && $left < 0;
    kill "KILL", @live if @live;
    select(undef, undef, undef, 0.01);
  }
}

my $stdin_open = 1;
my $buffer = "";
for (;;) {
  exit 0 if reap() < 0 && $shell_done;
  my $rin = "";
  vec($rin, 0, 1) = 1 if $stdin_open;
  my $ready = select(my $rout = $rin, undef, undef, 0.1);
  next unless $stdin_open && $ready > 0 && vec($rout, 0, 1);
  my $n = sysread(STDIN, my $chunk, 4096);
  next if !defined $n && $! == 4;
  if (!$n) {
    # The host is gone. A fenced job goes with it; a survive job keeps its shim, so an adopter can still kill it all.
    $stdin_open = 0;
    kill_all(0) if $fenced;
    next;
  }
  $buffer .= $chunk;
  while ($buffer =~ s/^([^\n]*)\n//) {
    kill_all($1) if $1 =~ /^kill (\d+)$/;
  }
}
`
