module github.com/stockade/stockade/internal/testserver

go 1.26
