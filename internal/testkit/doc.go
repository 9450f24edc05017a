// Package testkit starts real, throwaway servers for tests: redis-server,
// a Redis Cluster of three redis-servers, a Redis primary and replica
// watched by three Sentinels, PostgreSQL, a single etcd member, nats-server
// with JetStream and a JetStream cluster of three nats-servers, each a
// process on free loopback ports with its own temporary directory. It uses
// the binaries installed on the machine, pgx to talk to PostgreSQL,
// go-redis to form a Redis Cluster and nats.go to ask a JetStream cluster
// which node leads a stream. For Kafka, of which no broker is packaged,
// it starts kfake, franz-go's in-process cluster that speaks the Kafka
// protocol, and finds Debian's kcat to check the wire with.
//
// It is the kit the lock backends and the stockade service test with. It
// is a module of its own, required only by the repository's tests, so that
// neither a program importing the lock library or the service's packages
// nor the stockade binary resolves it; and it is internal, so it is not an
// API that a release has to keep.
//
// # Usage
//
// A test binary opts in with TestMain, which closes the shared servers when
// the tests are done:
//
//	func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
//
// Without it SharedRedis and friends fail the test rather than leave a
// server's directory behind.
//
// Most tests use the server shared by the whole binary, started on first
// use, and isolate themselves with their own keys or database:
//
//	pg := testkit.SharedPostgres(t)
//	url, err := pg.CreateDatabase("reservations_test")
//
// A test that injects faults starts a private instance, closed by the
// test's cleanup, and is free to stop, kill, pause and restart it:
//
//	r := testkit.NewRedis(t) // Redlock tests call this five times
//	r.Pause()                   // SIGSTOP: connections hang
//	r.Resume()
//	r.Kill()    // SIGKILL to the server and its children, like a crash
//	r.Restart() // same port again; Redis comes back empty
//
// A Redis server can listen for TLS too, with a certificate authority of
// its own that TLSConfig trusts:
//
//	r := testkit.NewRedisWith(t, &testkit.RedisOptions{TLS: true})
//	c := redis.NewClient(&redis.Options{Addr: r.TLSAddr(), TLSConfig: r.TLSConfig()})
//
// A Redis Cluster is three masters without replicas, each a Redis handle
// of its own, with the 16384 slots split in three ranges. It is ready when
// every node reports cluster_state:ok. NodeFor tells which node serves a
// key, so a test can pick keys on different masters, or fail the master of
// one. A restarted node rejoins with its slots but no data, and the others
// refuse commands until they trust it again: WaitOK waits for that.
//
//	c := testkit.NewRedisCluster(t, nil) // or SharedRedisCluster(t)
//	rc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
//	n := c.NodeFor("lock:{sku-1}")
//	n.Kill()
//	n.Restart()
//	err := c.WaitOK()
//
// A Redis Sentinel setup is a primary, a replica that replicates through a
// Proxy, and three Sentinels (redis-server --sentinel) with a quorum of
// two. Kill the primary and WaitPrimary returns the replica once a
// majority of Sentinels name it; blackhole ReplicaLink first and the
// writes it held back are lost in the failover, as asynchronous
// replication loses them:
//
//	s := testkit.NewRedisSentinel(t, nil)
//	c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: s.MasterName(), SentinelAddrs: s.SentinelAddrs()})
//	old := s.Nodes()[0]
//	old.Kill()
//	p, err := s.WaitPrimary(old) // the replica, now the primary
//
// A NATS server runs with JetStream, its store in the server's directory,
// so streams survive Kill and Restart; a client connects to URL:
//
//	n := testkit.NewNATS(t)
//	nc, err := nats.Connect(n.URL()) // "nats://127.0.0.1:port"
//	n.Stop()                         // the broker is down until Restart
//	n.Restart()                      // same port, same streams
//
// A JetStream cluster is three nats-servers routed to one another, each a
// NATS handle of its own with its own store, so a stream of three
// replicas keeps a copy on each and stays writable with one node down. It
// is ready when JetStream places such a stream. StreamLeader tells which
// node leads a stream, so a test can fail it; a client connects to URLs
// and moves to another node when its own goes down:
//
//	c := testkit.NewNATSCluster(t, nil)
//	nc, err := nats.Connect(c.URLs(), nats.MaxReconnects(-1))
//	n, err := c.StreamLeader(ctx, "ORDERS")
//	n.Kill()    // the others elect a new leader
//	n.Restart() // it catches up
//	err = c.WaitJetStream()
//
// A Kafka cluster is three kfake brokers in the test's process, on
// loopback ports, its topics in memory; it can refuse every write for a
// while, as brokers without a leader do, and Cluster gives the kfake
// cluster for hooks of the test's own (kfake.Cluster.ControlKey):
//
//	k := testkit.NewKafka(t, nil)
//	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addrs()...))
//	k.RefuseWrites(true) // produce requests fail, and are retried
//	k.RefuseWrites(false)
//	out, err := exec.Command(testkit.Kcat(t), "-L", "-b", k.Seeds()).Output()
//
// StartRedis, StartRedisCluster, StartRedisSentinel, StartPostgres,
// StartEtcd, StartNATS, StartNATSCluster and StartKafka do the same without a
// testing.TB and with options; the caller closes what they return.
//
// A Proxy sits between a client and any server to break the network
// rather than the server: Cut resets every connection, Blackhole keeps
// them open but forwards nothing (a silent network, no reset), Heal
// restores the traffic:
//
//	p := testkit.NewProxy(t, pg.Addr()) // the client dials p.Addr()
//	p.Blackhole()
//	p.Heal()
//
// # Missing binaries
//
// When a binary is missing, SharedRedis, NewRedis and the others skip the
// test with a message naming it and the command that installs it
// (apt-get install redis-server, postgresql, etcd-server or nats-server).
// With the environment variable STOCKADE_REQUIRE_SERVERS=1, as in CI, they
// fail the test instead, so that a run cannot pass by skipping. A shared
// server that failed to start is not retried: every later caller fails the
// same way at once. The Start functions return an error wrapping ErrNotInstalled.
//
// PostgreSQL's initdb and postgres are looked up on PATH and then in the
// newest /usr/lib/postgresql/<version>/bin, where Debian puts them. Both
// refuse to run as root, so under root they run as user postgres (or nobody)
// in a directory under os.TempDir owned by that user.
//
// # Guarantees and failure modes
//
//   - A server is ready when it answers: Redis its INFO (a Redis Cluster
//     when every node also reports cluster_state:ok), PostgreSQL a query,
//     etcd its /health and member list, NATS the INFO line it greets a
//     connection with (JetStream enabled, streams already recovered; a
//     JetStream cluster when every node is routed to the others and a
//     stream of three replicas can be placed). It must
//     also prove to be the process that was started, not another test
//     binary's server that won the race for the port; a lost race is retried
//     on a new port. A server that is not ready within the start timeout
//     (30s by default) is killed, and the error ends with the tail of its
//     log.
//   - Each server runs in its own process group, and the kernel kills it if
//     the test binary dies, so a crashed test leaves no servers behind. Pause,
//     Kill and Stop reach every child, including PostgreSQL backends, which
//     leave the postmaster's process group.
//   - Restart reuses the port and directory. Redis runs without persistence
//     and comes back empty; PostgreSQL, etcd and NATS (its JetStream streams)
//     keep their data, including after Kill. PostgreSQL runs with fsync=off
//     and JetStream syncs to disk only periodically, so data would not
//     survive a crash of the machine, which tests do not simulate.
//   - Stop and Kill on a server that is not running return nil. Every method
//     is safe for concurrent use; lifecycle operations run one at a time.
//   - Shared servers, and the nodes of the shared Redis Cluster, refuse Stop,
//     Kill, Pause, Resume, Restart and Close with ErrShared.
//
// Linux is the supported platform. On other Unix systems a crashed test
// binary may leave servers running.
package testkit
