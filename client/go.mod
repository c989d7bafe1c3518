module github.com/frontdesk/frontdesk/client

go 1.26.8
