# frozen_string_literal: true

require "etc"
require "ipaddr"
require "set"

module Arena
  module System
    # Reads the few /proc files Arena needs. Every reader takes the proc root as a
    # keyword so tests can point it at fixture files instead of the live system.
    module Procfs
      # children: CPU ticks of the children this process has reaped (cutime + cstime).
      Stat = Struct.new(:pid, :comm, :state, :ppid, :pgrp, :utime, :stime, :starttime, :children, keyword_init: true)
      Memory = Struct.new(:rss_kb, :pss_kb, :uss_kb, keyword_init: true)

      CLK_TCK = Etc.sysconf(Etc::SC_CLK_TCK)

      module_function

      # The machine's memory (MemTotal, kB), or nil when it cannot be read.
      def memory_total_kb(root: "/proc")
        File.read(File.join(root, "meminfo"))[/^MemTotal:\s+(\d+)/, 1]&.to_i
      rescue SystemCallError
        nil
      end

      # The comm field may itself hold spaces and parentheses, so split at the last ")".
      def parse_stat(text)
        open_at = text.index("(")
        close_at = text.rindex(")")
        return nil unless open_at && close_at

        rest = text[(close_at + 2)..].split
        Stat.new(
          pid: text[0...open_at].to_i, comm: text[(open_at + 1)...close_at], state: rest[0],
          ppid: rest[1].to_i, pgrp: rest[2].to_i, utime: rest[11].to_i, stime: rest[12].to_i,
          starttime: rest[19].to_i, children: rest[13].to_i + rest[14].to_i
        )
      end

      # USS is what only this process holds: its private pages, clean and dirty.
      def parse_smaps_rollup(text)
        fields = text.each_line.filter_map { |line| line =~ /\A(\w+):\s+(\d+) kB/ && [$1, $2.to_i] }.to_h
        Memory.new(
          rss_kb: fields.fetch("Rss", 0), pss_kb: fields.fetch("Pss", 0),
          uss_kb: fields.fetch("Private_Clean", 0) + fields.fetch("Private_Dirty", 0)
        )
      end

      # The command line as the process shows it (servers retitle their workers).
      def cmdline(pid, root: "/proc")
        File.read("#{root}/#{pid}/cmdline").tr("\0", " ")
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        ""
      end

      def stat(pid, root: "/proc")
        parse_stat(File.read("#{root}/#{pid}/stat"))
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        nil
      end

      def memory(pid, root: "/proc")
        parse_smaps_rollup(File.read("#{root}/#{pid}/smaps_rollup"))
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        nil
      end

      def all_stats(root: "/proc")
        Dir.children(root).filter_map { |entry| entry.match?(/\A\d+\z/) && stat(entry, root: root) }
      end

      # The tree of a server: every process in its process group, plus descendants
      # that left the group (setsid daemons such as Passenger's agents), found by
      # parent links. Re-read on every call so respawned workers are counted.
      # Zombies (killed, not yet reaped) are not part of a serving tree.
      def tree(leader, root: "/proc")
        stats = all_stats(root: root).reject { |s| s.state == "Z" }
        members = stats.select { |s| s.pgrp == leader || s.pid == leader }.map(&:pid)
        children = stats.group_by(&:ppid)
        queue = members.dup
        until queue.empty?
          (children[queue.shift] || []).each do |child|
            next if members.include?(child.pid)
            members << child.pid
            queue << child.pid
          end
        end
        members.sort
      end

      # Every TCP address the given processes listen on ("127.0.0.1:8080",
      # "[::]:9292"): the LISTEN rows of /proc/net/tcp and tcp6 whose socket
      # inode one of the processes holds open.
      def listening(pids, root: "/proc")
        inodes = pids.flat_map { |pid| socket_inodes(pid, root: root) }.to_set
        tcp_rows(root).filter_map { |local, state, inode| tcp_address(local) if state == TCP_LISTEN && inodes.include?(inode) }.uniq
      end

      TCP_LISTEN = "0A"
      TCP_ESTABLISHED = "01"

      # The established TCP connections each of the given processes holds on
      # its local `port` ({pid => count}, 0 for one that holds none): the
      # ESTABLISHED rows of /proc/net/tcp and tcp6 whose local port is `port`,
      # matched by socket inode against each process's open fds. A connection
      # the kernel has queued but no process has accepted belongs to none.
      def established(pids, port, root: "/proc")
        hex = format("%04X", port)
        inodes = tcp_rows(root).filter_map { |local, state, inode| inode if state == TCP_ESTABLISHED && local.end_with?(":#{hex}") }.to_set
        pids.to_h { |pid| [pid, socket_inodes(pid, root: root).uniq.count { |inode| inodes.include?(inode) }] }
      end

      # [local address, state, socket inode] of every row of /proc/net/tcp and
      # tcp6 (a table the kernel lacks, as tcp6 without IPv6, has none).
      def tcp_rows(root)
        %w[tcp tcp6].flat_map do |table|
          File.readlines("#{root}/net/#{table}").drop(1).map { |line| line.split.values_at(1, 3, 9) }
        rescue Errno::ENOENT
          []
        end
      end

      def socket_inodes(pid, root: "/proc")
        Dir.glob("#{root}/#{pid}/fd/*").filter_map do |fd|
          File.readlink(fd)[/\Asocket:\[(\d+)\]\z/, 1]
        rescue Errno::ENOENT, Errno::EACCES
          nil
        end
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        []
      end

      # "0100007F:1F90" -> "127.0.0.1:8080"; an IPv6 address in brackets. The
      # kernel prints each 32-bit word of the address in host (little-endian) order.
      def tcp_address(hex)
        addr, port = hex.split(":")
        words = addr.scan(/.{8}/).map { |w| [w].pack("H*").unpack1("V") }
        packed = words.pack("N*")
        ip = (words.size == 1) ? IPAddr.new_ntoh(packed).to_s : "[#{IPAddr.new_ntoh(packed)}]"
        "#{ip}:#{port.to_i(16)}"
      end
    end
  end
end
