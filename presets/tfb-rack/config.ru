# frozen_string_literal: true

# The tfb-rack preset's app: plain Rack on PostgreSQL, written for Arena from
# TechEmpower's published test rules (their "Framework Tests" page): json,
# plaintext, db, queries, fortunes and updates, raw (the pg driver, no ORM).
# Arena creates and seeds its database (World: 10,000 rows, Fortune: 12) from
# arena-db.sql beside this file and points DATABASE_URL at it. Arena's
# verification of these rules is lib/arena/tfb.rb.
#
# The rules ask for Server and Date headers, which not every Rack server
# adds, so the app sets them. No logging (the rules forbid disk logging).
require "json"
require "pg"
require "time"
require "cgi"

module TfbRack
  WORLD_ROWS = 10_000
  MAX_QUERIES = 500
  EXTRA_FORTUNE = "Additional fortune added at request time."
  SERVER = "rack-arena-tfb"

  # Connections are made on first use in each process (never before a
  # fork) and handed out one per request; a request waits for one when all
  # are taken. Queue#pop yields to a fiber scheduler, so Falcon's fibers
  # share the pool as threads do elsewhere. POOL caps each process.
  class Pool
    def initialize(url, size)
      @url = url
      @size = size
      @idle = Queue.new
      @made = 0
      @lock = Mutex.new
    end

    def with
      conn = take
      yield conn
    ensure
      @idle.push(conn) if conn
    end

    private

    def take
      @idle.pop(true)
    rescue ThreadError
      grow = @lock.synchronize { (@made < @size) ? (@made += 1) : nil }
      grow ? connect : @idle.pop
    end

    def connect
      conn = PG.connect(@url)
      conn.prepare("world", "SELECT id, randomnumber FROM world WHERE id = $1")
      conn.prepare("update", "UPDATE world SET randomnumber = $2 WHERE id = $1")
      conn.prepare("fortunes", "SELECT id, message FROM fortune")
      conn
    end
  end

  POOL = Pool.new(ENV.fetch("DATABASE_URL"), Integer(ENV.fetch("TFB_POOL_SIZE", "16")))

  module_function

  def call(env)
    case env["PATH_INFO"]
    when "/json" then json(JSON.generate({message: "Hello, World!"}))
    when "/plaintext" then respond("text/plain", "Hello, World!")
    when "/db" then json(JSON.generate(POOL.with { |c| world(c, random_id) }))
    when "/queries" then json(JSON.generate(POOL.with { |c| Array.new(queries(env)) { world(c, random_id) } }))
    when "/updates" then json(JSON.generate(POOL.with { |c| updates(c, queries(env)) }))
    when "/fortunes" then respond("text/html; charset=utf-8", fortunes_page)
    else respond("text/plain", "not found", status: 404)
    end
  end

  def respond(type, body, status: 200)
    [status, {"content-type" => type, "content-length" => body.bytesize.to_s, "server" => SERVER,
              "date" => Time.now.httpdate}, [body]]
  end

  def json(body) = respond("application/json", body)

  def random_id = rand(1..WORLD_ROWS)

  def world(conn, id)
    row = conn.exec_prepared("world", [id]).first
    {id: row["id"].to_i, randomNumber: row["randomnumber"].to_i}
  end

  # ?queries=N bounded to 1..500; missing or not an integer is 1.
  def queries(env)
    value = env["QUERY_STRING"].to_s[/(?:\A|&)queries=([^&]*)/, 1]
    number = Integer(value.to_s, 10, exception: false) || 1
    number.clamp(1, MAX_QUERIES)
  end

  # Each row read by its own query, then written with its own new number.
  def updates(conn, count)
    Array.new(count) do
      row = world(conn, random_id)
      row[:randomNumber] = random_id
      conn.exec_prepared("update", [row[:id], row[:randomNumber]])
      row
    end
  end

  # All fortunes (no ORDER BY), one more made for this request, sorted by
  # message, every message escaped.
  def fortunes_page
    rows = POOL.with { |c| c.exec_prepared("fortunes").map { |r| [r["id"].to_i, r["message"]] } }
    rows << [0, EXTRA_FORTUNE]
    rows.sort_by! { |_, message| message }
    cells = rows.map { |id, message| "<tr><td>#{id}</td><td>#{CGI.escapeHTML(message)}</td></tr>" }
    "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>" \
      "#{cells.join}</table></body></html>"
  end
end

run TfbRack
